/** A zone's wall clock from Intl: offsets, and the first instant the clock shows a local time. */
import { firstInstantShowing, offsetAt } from '../../../../nodes/shared/phoneZones/zoneOffsets';

const at = (iso: string) => Date.parse(iso);
/** A local date-time written as if it were UTC, as zoneOffsets' "wall" times are. */
const wall = (local: string) => Date.parse(`${local}Z`);
const HOUR = 3_600_000;

test('offsetAt: the offset of the instant, changing at the second the clocks change', () => {
	expect(offsetAt('America/New_York', at('2026-03-08T06:59:59Z'))).toBe(-5 * HOUR);
	expect(offsetAt('America/New_York', at('2026-03-08T07:00:00Z'))).toBe(-4 * HOUR);
	expect(offsetAt('Pacific/Chatham', at('2026-11-26T00:00:00Z'))).toBe(13.75 * HOUR);
	expect(offsetAt('America/St_Johns', at('2026-11-26T00:00:00Z'))).toBe(-3.5 * HOUR);
	expect(offsetAt('UTC', at('2026-11-26T00:00:00Z'))).toBe(0);
});

test('firstInstantShowing: once, twice (the first), and never (the change, when the clock jumps past it)', () => {
	expect(firstInstantShowing('Europe/London', wall('2026-11-26T09:00:00'))).toBe(
		at('2026-11-26T09:00:00Z'),
	);
	expect(firstInstantShowing('America/New_York', wall('2026-11-01T01:30:00'))).toBe(
		at('2026-11-01T01:30:00-04:00'),
	);
	expect(firstInstantShowing('America/New_York', wall('2026-03-08T02:30:00'))).toBe(
		at('2026-03-08T03:00:00-04:00'),
	);
	expect(firstInstantShowing('Pacific/Kiritimati', wall('2026-11-27T00:00:00'))).toBe(
		at('2026-11-26T10:00:00Z'),
	);
});

test('after more days than it keeps per zone, it starts over and still answers right', () => {
	const start = at('2026-01-01T12:00:00Z');
	for (let day = 0; day < 1500; day++) offsetAt('Europe/London', start + day * 24 * HOUR);
	expect(offsetAt('Europe/London', at('2026-07-01T12:00:00Z'))).toBe(HOUR);
	expect(offsetAt('Europe/London', at('2026-12-01T12:00:00Z'))).toBe(0);
	expect(offsetAt('Europe/London', at('2029-07-01T12:00:00Z'))).toBe(HOUR);
});
