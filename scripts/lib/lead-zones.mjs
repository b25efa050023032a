// Leads in several time zones for the Calling Hours tests and benchmark: phone-number prefixes that
// libphonenumber's prefix-to-time-zone map (v9.0.35) gives exactly one zone, and the wall-clock
// arithmetic a test needs to know, independently of the node, which leads are inside a daily window
// now and when an outside lead's next window opens. Only Intl; Node built-ins only.

/**
 * Prefixes (E.164 digits) whose longest match in libphonenumber's map is a single zone, spread over
 * the offsets -11 … +13. The map names some zones by their old aliases (Asia/Calcutta): Intl takes both.
 */
export const SINGLE_ZONE_PREFIXES = Object.freeze([
	{ prefix: '1684', zone: 'Pacific/Pago_Pago' },
	{ prefix: '1808', zone: 'Pacific/Honolulu' },
	{ prefix: '1415', zone: 'America/Los_Angeles' },
	{ prefix: '1303', zone: 'America/Denver' },
	{ prefix: '1312', zone: 'America/Chicago' },
	{ prefix: '1212', zone: 'America/New_York' },
	{ prefix: '1787', zone: 'America/Puerto_Rico' },
	{ prefix: '5411', zone: 'America/Buenos_Aires' },
	{ prefix: '238', zone: 'Atlantic/Cape_Verde' },
	{ prefix: '354', zone: 'Atlantic/Reykjavik' },
	{ prefix: '4420', zone: 'Europe/London' },
	{ prefix: '331', zone: 'Europe/Paris' },
	{ prefix: '202', zone: 'Africa/Cairo' },
	{ prefix: '25420', zone: 'Africa/Nairobi' },
	{ prefix: '9714', zone: 'Asia/Dubai' },
	{ prefix: '9221', zone: 'Asia/Karachi' },
	{ prefix: '9122', zone: 'Asia/Calcutta' },
	{ prefix: '9771', zone: 'Asia/Katmandu' },
	{ prefix: '8802', zone: 'Asia/Dhaka' },
	{ prefix: '662', zone: 'Asia/Bangkok' },
	{ prefix: '656', zone: 'Asia/Singapore' },
	{ prefix: '813', zone: 'Asia/Tokyo' },
	{ prefix: '612', zone: 'Australia/Sydney' },
	{ prefix: '687', zone: 'Pacific/Noumea' },
	{ prefix: '679', zone: 'Pacific/Fiji' },
	{ prefix: '649', zone: 'Pacific/Auckland' },
	{ prefix: '676', zone: 'Pacific/Tongatapu' },
]);

/**
 * The zones libphonenumber's map gives a number (E.164): the longest prefix of its digits that the map
 * lists, read from the map's own text (`prefix|Zone&Zone` lines). Undefined when no prefix matches.
 */
export function zonesInMap(e164, mapText) {
	const map = new Map();
	for (const line of mapText.split('\n')) {
		const match = /^(\d+)\|(.+)$/.exec(line.trim());
		if (match) map.set(match[1], match[2].split('&'));
	}
	const digits = e164.replace(/^\+/, '');
	for (let length = digits.length; length > 0; length--) {
		const zones = map.get(digits.slice(0, length));
		if (zones) return zones;
	}
	return undefined;
}

const formatters = new Map();
function formatter(zone) {
	let format = formatters.get(zone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
			timeZoneName: 'longOffset',
		});
		formatters.set(zone, format);
	}
	return format;
}

/** The wall clock of `zone` at `ms`: date, minutes after midnight, and the offset as `+05:30`. */
export function wallClock(zone, ms) {
	const parts = Object.fromEntries(
		formatter(zone)
			.formatToParts(new Date(ms))
			.map((part) => [part.type, part.value]),
	);
	const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.slice(3);
	return {
		date: `${parts.year}-${parts.month}-${parts.day}`,
		minutes: Number(parts.hour) * 60 + Number(parts.minute),
		offset,
	};
}

const offsetMs = (offset) => {
	const sign = offset.startsWith('-') ? -1 : 1;
	const [hours, minutes] = offset.slice(1).split(':').map(Number);
	return sign * (hours * 60 + minutes) * 60_000;
};

/** Whether local minutes after midnight fall in a daily [from, until); until before from: overnight. */
const insideMinutes = (minutes, { from, until }) =>
	until > from ? minutes >= from && minutes < until : minutes >= from || minutes < until;

/** Whether `ms` falls in [from, until) of the local day in `zone` (minutes after midnight; until < from: overnight). */
export function insideDailyWindow(zone, ms, window) {
	return insideMinutes(wallClock(zone, ms).minutes, window);
}

/**
 * When a window open every day from `from` (minutes after local midnight) next opens after `ms` in
 * `zone`, as a lead's `next_call_at` shows it: `2026-11-26T09:00:00-05:00`, in the zone's offset of
 * that moment. For an instant outside the window (before it opens today, or after it closed).
 */
export function nextDailyWindowStart(zone, ms, { from }) {
	const today = wallClock(zone, ms);
	const day = new Date(`${today.date}T00:00:00Z`);
	if (today.minutes >= from) day.setUTCDate(day.getUTCDate() + 1);
	const date = day.toISOString().slice(0, 10);
	const clock = `${String(Math.floor(from / 60)).padStart(2, '0')}:${String(from % 60).padStart(2, '0')}:00`;
	// The local time read as UTC, moved by the zone's offset at (about) that moment; checked once more
	// so a day whose offset changes overnight still lands on the local clock.
	const asUtc = Date.parse(`${date}T${clock}Z`);
	let offset = wallClock(zone, asUtc).offset;
	offset = wallClock(zone, asUtc - offsetMs(offset)).offset;
	return { iso: `${date}T${clock}${offset}`, ms: asUtc - offsetMs(offset) };
}

/**
 * The pool split at `ms` into zones inside the daily window and zones outside it, leaving out those
 * within `marginMinutes` of either edge, so a run that lasts less than the margin sees the same split.
 */
export function splitByWindow(ms, { from, until, marginMinutes = 30 }) {
	const inside = [];
	const outside = [];
	for (const entry of SINGLE_ZONE_PREFIXES) {
		const { minutes } = wallClock(entry.zone, ms);
		const distance = (edge) => Math.min(Math.abs(minutes - edge), 1440 - Math.abs(minutes - edge));
		if (Math.min(distance(from), distance(until)) < marginMinutes) continue;
		(insideMinutes(minutes, { from, until }) ? inside : outside).push(entry);
	}
	return { inside, outside };
}

/**
 * When a daily window is next open in every one of `zones` at once, from `ms` on: each zone's next opening,
 * the latest of them, until all are inside (null when that does not happen within a week). As a lead's
 * `next_call_at` shows it: ISO 8601 in the offset of the first zone, to the minute.
 */
export function nextCommonWindowStart(zones, ms, window) {
	let candidate = ms;
	for (let step = 0; step < 7 * zones.length; step++) {
		const outside = zones.filter((zone) => !insideDailyWindow(zone, candidate, window));
		if (outside.length === 0) {
			const { date, minutes, offset } = wallClock(zones[0], candidate);
			const clock = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;
			return { iso: `${date}T${clock}${offset}`, ms: candidate };
		}
		candidate = Math.max(
			...outside.map((zone) => nextDailyWindowStart(zone, candidate, window).ms),
		);
	}
	return null;
}
