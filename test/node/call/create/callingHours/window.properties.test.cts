/**
 * Calling Hours' window arithmetic against a brute-force oracle, over drawn windows (days, from and until,
 * overnight and 24:00 included), one to three zones (daylight saving north and south, half- and quarter-hour
 * offsets, UTC+14) and instants across 2026–2027, with the days the clocks change drawn often.
 *
 * The oracle asks Intl for the local clock at every minute and keeps the latest local time the clock has shown
 * (it goes back an hour when the clocks fall back). By the rules in window.ts an occurrence of the window, from
 * `from` on a listed day to `until`, is open while that latest local time is in [from, until). After every run:
 *
 * - isInsideWindow agrees with the oracle;
 * - nextWindowStart is now when now is inside, else the first minute after now inside in every zone by the
 *   oracle, or undefined when no minute within 8 days is;
 * - the start it gives is inside in each zone by isInsideWindow too.
 *
 * Settings: test/support/properties.cts.
 */
import fc from 'fast-check';

import {
	isInsideWindow,
	nextWindowStart,
	type CallingWindow,
} from '../../../../../nodes/VoiceAgent/actions/call/create/callingHours/window';
import { propertyParameters, propertyTimeout } from '../../../../support/properties.cts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const HORIZON = 8 * DAY;

const ZONES = [
	'America/New_York',
	'Europe/London',
	'Australia/Sydney',
	'America/Sao_Paulo',
	'Asia/Kolkata',
	'Pacific/Chatham',
	'Pacific/Kiritimati',
	'America/St_Johns',
	'UTC',
];

const START = Date.UTC(2026, 0, 1);
const END = Date.UTC(2028, 0, 1);

// --- The oracle: Intl at every minute, nothing from the code under test. ---

const formatters = new Map<string, Intl.DateTimeFormat>();
function localClock(zone: string, ms: number): number {
	let formatter = formatters.get(zone);
	if (!formatter) {
		formatter = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		});
		formatters.set(zone, formatter);
	}
	const [, month, day, year, hour, minute, second] = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/
		.exec(formatter.format(ms))!
		.map(Number);
	return Date.UTC(year, month - 1, day, hour % 24, minute, second) + (ms % 1000);
}

/** One zone's clock watched from 3 hours before `fromMs`; `inside` must be asked in increasing time. */
function watch(window: CallingWindow, zone: string, fromMs: number) {
	let latest = -Infinity;
	const see = (ms: number) => (latest = Math.max(latest, localClock(zone, ms)));
	for (let ms = Math.floor(fromMs / MINUTE) * MINUTE - 3 * HOUR; ms < fromMs; ms += MINUTE) see(ms);
	return (ms: number): boolean => {
		see(ms);
		if (window.from === window.until) return false;
		const today = Math.floor(latest / DAY);
		for (const day of [today - 1, today]) {
			if (!window.days.includes((((day + 4) % 7) + 7) % 7)) continue;
			const opens = day * DAY + window.from * MINUTE;
			const closes = (window.until > window.from ? day : day + 1) * DAY + window.until * MINUTE;
			if (opens <= latest && latest < closes) return true;
		}
		return false;
	};
}

/** The oracle's next start: now if inside everywhere, else the first whole minute after it, within 8 days. */
function oracleNextStart(window: CallingWindow, zones: readonly string[], nowMs: number) {
	const watchers = zones.map((zone) => watch(window, zone, nowMs));
	const insideEverywhere = (ms: number) => watchers.map((inside) => inside(ms)).every(Boolean);
	if (insideEverywhere(nowMs)) return { insideNow: true, next: nowMs };
	for (let ms = Math.floor(nowMs / MINUTE) * MINUTE + MINUTE; ms <= nowMs + HORIZON; ms += MINUTE)
		if (insideEverywhere(ms)) return { insideNow: false, next: ms };
	return { insideNow: false, next: undefined };
}

/** The instants of 2026–2027 at which the drawn zones' clocks change, found hour by hour with Intl. */
function clockChanges(): Array<{ zone: string; ms: number }> {
	const changes: Array<{ zone: string; ms: number }> = [];
	for (const zone of ZONES) {
		let previous = localClock(zone, START) - START;
		for (let ms = START + HOUR; ms < END; ms += HOUR) {
			const offset = localClock(zone, ms) - ms;
			if (offset !== previous) changes.push({ zone, ms });
			previous = offset;
		}
	}
	return changes;
}

// --- What is drawn. ---

const clockTimes = [0, 60, 90, 120, 150, 165, 180, 1380, 1410];
const windowArbitrary: fc.Arbitrary<CallingWindow> = fc.record({
	days: fc.oneof(
		{ weight: 1, arbitrary: fc.constant([0, 1, 2, 3, 4, 5, 6]) },
		{ weight: 4, arbitrary: fc.subarray([0, 1, 2, 3, 4, 5, 6]) },
	),
	from: fc.oneof(fc.integer({ min: 0, max: 1439 }), fc.constantFrom(...clockTimes)),
	until: fc.oneof(fc.integer({ min: 1, max: 1440 }), fc.constantFrom(1440, ...clockTimes)),
});
const zonesArbitrary = fc.uniqueArray(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 3 });

function instantArbitrary(changes: Array<{ ms: number }>): fc.Arbitrary<number> {
	const anyMinute = fc
		.integer({ min: START / MINUTE, max: END / MINUTE - 1 })
		.map((m) => m * MINUTE);
	const nearAChange = fc
		.tuple(fc.constantFrom(...changes), fc.integer({ min: -36 * 60, max: 36 * 60 }))
		.map(([change, minutes]) => change.ms + minutes * MINUTE);
	const seconds = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 59_999 }));
	return fc
		.tuple(fc.oneof(anyMinute, nearAChange), seconds)
		.map(([minute, extra]) => minute + extra);
}

const changes = clockChanges();
const RUNS = 60;

test('the drawn zones change their clocks in 2026–2027 (New York, London, Sydney, Chatham, St John’s)', () => {
	// Guards the draw: without these the suite would not reach a clock change.
	expect(new Set(changes.map((change) => change.zone))).toEqual(
		new Set([
			'America/New_York',
			'Europe/London',
			'Australia/Sydney',
			'Pacific/Chatham',
			'America/St_Johns',
		]),
	);
});

test(
	'nextWindowStart and isInsideWindow agree with a minute-by-minute scan of the local clocks',
	() => {
		fc.assert(
			fc.property(
				windowArbitrary,
				zonesArbitrary,
				instantArbitrary(changes),
				(window, zones, nowMs) => {
					const oracle = oracleNextStart(window, zones, nowMs);
					expect(isInsideWindow(window, zones, nowMs)).toBe(oracle.insideNow);
					const next = nextWindowStart(window, zones, nowMs);
					expect(next).toBe(oracle.next);
					if (next !== undefined)
						for (const zone of zones)
							expect([zone, isInsideWindow(window, [zone], next)]).toEqual([zone, true]);
				},
			),
			propertyParameters(RUNS),
		);
	},
	propertyTimeout(RUNS, 200),
);

test(
	'isInsideWindow agrees with the oracle at every minute of the two days around a clock change',
	() => {
		fc.assert(
			fc.property(
				windowArbitrary,
				fc.constantFrom(...changes),
				fc.oneof(
					{ weight: 3, arbitrary: fc.constant(undefined) },
					{ weight: 1, arbitrary: fc.constantFrom(...ZONES) },
				),
				(window, change, otherZone) => {
					// Mostly the zone whose clock changes; sometimes another one, on the same two days.
					const zone = otherZone ?? change.zone;
					const fromMs = change.ms - DAY;
					const inside = watch(window, zone, fromMs);
					const disagreements: string[] = [];
					for (let ms = fromMs; ms < change.ms + DAY; ms += MINUTE)
						if (isInsideWindow(window, [zone], ms) !== inside(ms))
							disagreements.push(new Date(ms).toISOString());
					expect(disagreements).toEqual([]);
				},
			),
			propertyParameters(RUNS / 2),
		);
	},
	propertyTimeout(RUNS / 2, 200),
);
