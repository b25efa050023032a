/**
 * A time zone's wall clock, from the platform's `Intl` only. An instant's local time is its UTC time plus the
 * zone's offset; the offset is asked of `Intl` (about 4 µs a question) once or twice per zone and UTC day and
 * kept, so the common question (this zone, about now) costs a couple of map look-ups.
 *
 * "Wall" times below are local date-times written as milliseconds, as if they were UTC: `Date.UTC(y, m, d, h,
 * min)` for the local `y-m-d h:min`. Assumes, as in every zone's rules today, at most one offset change per zone
 * within a UTC day, at a whole second.
 */

const SECOND = 1_000;
const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** Farther than any zone's offset from UTC (−12 to +14 hours today). */
const BEYOND_ANY_OFFSET = 27 * HOUR;

/** A UTC day in one zone: its offset (ms) before `change`, and after it; `change` is Infinity when none. */
interface DayOffsets {
	before: number;
	change: number;
	after: number;
}

/** Days kept per zone; a long-running process starts over when a zone reaches it (a few KB each). */
const DAYS_KEPT_PER_ZONE = 1024;

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetsByZone = new Map<string, Map<number, DayOffsets>>();

/** The zone's formatter, made once per zone; throws RangeError for a zone `Intl` does not know. */
export function formatterOf(zone: string): Intl.DateTimeFormat {
	let formatter = formatters.get(zone);
	if (!formatter) {
		formatter = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		formatters.set(zone, formatter);
	}
	return formatter;
}

/** The zone's offset at an instant (a whole second), asked of `Intl`. */
function measuredOffset(zone: string, ms: number): number {
	const fields: Record<string, number> = {};
	for (const part of formatterOf(zone).formatToParts(ms)) fields[part.type] = Number(part.value);
	const wall = Date.UTC(
		fields.year,
		fields.month - 1,
		fields.day,
		fields.hour % 24,
		fields.minute,
		fields.second,
	);
	return wall - ms;
}

function offsetsOfDay(zone: string, day: number): DayOffsets {
	let days = offsetsByZone.get(zone);
	if (!days) {
		days = new Map();
		offsetsByZone.set(zone, days);
	}
	const known = days.get(day);
	if (known) return known;
	const start = day * DAY;
	const before = measuredOffset(zone, start);
	const after = measuredOffset(zone, start + DAY);
	let change = Infinity;
	if (after !== before) {
		// The first whole second with the new offset: lo keeps the old offset, hi has the new one.
		let lo = start;
		let hi = start + DAY;
		while (hi - lo > SECOND) {
			const mid = lo + Math.floor((hi - lo) / (2 * SECOND)) * SECOND;
			if (measuredOffset(zone, mid) === before) lo = mid;
			else hi = mid;
		}
		change = hi;
	}
	if (days.size >= DAYS_KEPT_PER_ZONE) days.clear();
	const offsets = { before, change, after };
	days.set(day, offsets);
	return offsets;
}

/** The zone's offset from UTC at an instant, in milliseconds (e.g. −18,000,000 for New York in winter). */
export function offsetAt(zone: string, ms: number): number {
	const offsets = offsetsOfDay(zone, Math.floor(ms / DAY));
	return ms < offsets.change ? offsets.before : offsets.after;
}

/**
 * The first instant at which the zone's clock shows `wall` or later. A wall time that happens twice (the clocks
 * go back) gives its first instant; one that never happens (the clocks go forward over it) gives the instant of
 * the change, when the clock jumps past it.
 */
export function firstInstantShowing(zone: string, wall: number): number {
	const lastDay = Math.floor((wall + BEYOND_ANY_OFFSET) / DAY);
	for (let day = Math.floor((wall - BEYOND_ANY_OFFSET) / DAY); day <= lastDay; day++) {
		// The day has up to two pieces of constant offset; in each, the clock shows `wall` at `wall - offset`.
		const { before, change, after } = offsetsOfDay(zone, day);
		const start = day * DAY;
		const end = start + DAY;
		const split = Math.min(Math.max(change, start), end);
		const inFirst = Math.max(start, wall - before);
		if (inFirst < split) return inFirst;
		const inSecond = Math.max(split, wall - after);
		if (inSecond < end) return inSecond;
	}
	return wall - offsetAt(zone, wall);
}
