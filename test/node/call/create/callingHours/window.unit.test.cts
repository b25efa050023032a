/**
 * Calling Hours' window arithmetic, instant by instant: each boundary, the days, overnight windows, the days the
 * clocks change in New York, London and Sydney, and numbers in several zones. Every instant is written by hand
 * with its offset, so the expectations do not depend on the code under test.
 */
import {
	isInsideWindow,
	isoWithOffset,
	isValidTimeZone,
	nextWindowStart,
	parseClock,
	type CallingWindow,
} from '../../../../../nodes/VoiceAgent/actions/call/create/callingHours/window';
import { zonesOfNumber } from '../../../../../nodes/shared/phoneZones/phoneZones';

const SUN = 0;
const MON = 1;
const FRI = 5;
const WEEKDAYS = [1, 2, 3, 4, 5];
const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];

const at = (iso: string) => Date.parse(iso);
const hours = (from: string, until: string, days: readonly number[]): CallingWindow => ({
	days,
	from: parseClock(from)!,
	until: parseClock(until)!,
});
const NY = ['America/New_York'];
const LONDON = ['Europe/London'];
const SYDNEY = ['Australia/Sydney'];

describe('parseClock', () => {
	test.each([
		['08:00', 480],
		['8:00', 480],
		['20:30', 1230],
		['00:00', 0],
		['23:59', 1439],
		['24:00', 1440],
		[' 9:15 ', 555],
	])('%j is %d minutes after midnight', (text, minutes) => {
		expect(parseClock(text)).toBe(minutes);
	});

	test.each(['24:01', '25:00', '8', '08:60', '8:5', '08:00:00', '8 am', '', '-1:00', '１２:00'])(
		'%j is not a clock time',
		(text) => {
			expect(parseClock(text)).toBeUndefined();
		},
	);
});

test('isValidTimeZone: what Intl knows (IANA names, UTC), nothing else', () => {
	for (const zone of ['Europe/London', 'America/New_York', 'UTC', 'Pacific/Chatham'])
		expect([zone, isValidTimeZone(zone)]).toEqual([zone, true]);
	for (const zone of ['Mars/Olympus_Mons', 'New York', '', ' '])
		expect([zone, isValidTimeZone(zone)]).toEqual([zone, false]);
});

describe('boundaries: from is inside, until is not (Monday–Friday 09:00–20:00 in New York)', () => {
	const window = hours('09:00', '20:00', WEEKDAYS);

	test('Wednesday 08:59:59.999 is outside, 09:00 inside, 19:59:59.999 inside, 20:00 outside', () => {
		expect(isInsideWindow(window, NY, at('2026-11-25T08:59:59.999-05:00'))).toBe(false);
		expect(isInsideWindow(window, NY, at('2026-11-25T09:00:00-05:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-11-25T19:59:59.999-05:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-11-25T20:00:00-05:00'))).toBe(false);
	});

	test('inside, the next start is now itself, to the millisecond', () => {
		const now = at('2026-11-25T14:03:07.123-05:00');
		expect(nextWindowStart(window, NY, now)).toBe(now);
	});

	test('after hours it is 09:00 the next weekday: Thursday after Wednesday, Monday after Friday and Saturday', () => {
		expect(nextWindowStart(window, NY, at('2026-11-25T20:00:00-05:00'))).toBe(
			at('2026-11-26T09:00:00-05:00'),
		);
		expect(nextWindowStart(window, NY, at('2026-11-27T20:00:00-05:00'))).toBe(
			at('2026-11-30T09:00:00-05:00'),
		);
		expect(nextWindowStart(window, NY, at('2026-11-28T12:00:00-05:00'))).toBe(
			at('2026-11-30T09:00:00-05:00'),
		);
		expect(nextWindowStart(window, NY, at('2026-11-25T03:00:00-05:00'))).toBe(
			at('2026-11-25T09:00:00-05:00'),
		);
	});

	test('until 24:00 ends at midnight; 00:00–24:00 every day is always open, clock changes included', () => {
		const evening = hours('18:00', '24:00', [MON]);
		expect(isInsideWindow(evening, NY, at('2026-11-30T23:59:59-05:00'))).toBe(true);
		expect(isInsideWindow(evening, NY, at('2026-12-01T00:00:00-05:00'))).toBe(false);
		const always = hours('00:00', '24:00', EVERY_DAY);
		for (const iso of [
			'2026-03-08T07:00:00Z',
			'2026-11-01T05:59:59Z',
			'2026-11-01T06:00:00Z',
			'2026-12-31T23:59:59Z',
		])
			expect([iso, isInsideWindow(always, NY, at(iso))]).toEqual([iso, true]);
	});
});

describe('overnight windows belong to the day they open (Friday 22:00–06:00 in London)', () => {
	const fridayNight = hours('22:00', '06:00', [FRI]);

	test('Friday night and Saturday morning are inside; the night Thursday opens and Saturday night are not', () => {
		expect(isInsideWindow(fridayNight, LONDON, at('2026-11-27T23:00:00Z'))).toBe(true);
		expect(isInsideWindow(fridayNight, LONDON, at('2026-11-28T05:59:59Z'))).toBe(true);
		expect(isInsideWindow(fridayNight, LONDON, at('2026-11-28T06:00:00Z'))).toBe(false);
		expect(isInsideWindow(fridayNight, LONDON, at('2026-11-28T23:00:00Z'))).toBe(false);
		expect(isInsideWindow(fridayNight, LONDON, at('2026-11-26T23:00:00Z'))).toBe(false);
		expect(isInsideWindow(fridayNight, LONDON, at('2026-11-27T05:00:00Z'))).toBe(false);
	});

	test('from Saturday morning the next start is the next Friday at 22:00', () => {
		const next = nextWindowStart(fridayNight, LONDON, at('2026-11-28T06:00:00Z'));
		expect(isoWithOffset(next!, 'Europe/London')).toBe('2026-12-04T22:00:00+00:00');
	});

	test('with Thursday listed too, Friday morning belongs to Thursday night', () => {
		const window = hours('22:00', '06:00', [4, FRI]);
		expect(isInsideWindow(window, LONDON, at('2026-11-27T05:00:00Z'))).toBe(true);
	});
});

describe('the days the clocks change', () => {
	test('New York, spring forward (2026-03-08): a 02:30 start opens at 03:00 EDT, when 02:00 becomes 03:00', () => {
		const window = hours('02:30', '05:00', [SUN]);
		expect(nextWindowStart(window, NY, at('2026-03-08T01:00:00-05:00'))).toBe(
			at('2026-03-08T03:00:00-04:00'),
		);
		expect(isInsideWindow(window, NY, at('2026-03-08T01:59:59-05:00'))).toBe(false);
		expect(isInsideWindow(window, NY, at('2026-03-08T03:00:00-04:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-03-08T04:59:59-04:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-03-08T05:00:00-04:00'))).toBe(false);
	});

	test('New York, fall back (2026-11-01): a 01:30 start opens at the first 01:30 and stays open through the repeated hour', () => {
		const window = hours('01:30', '05:00', [SUN]);
		expect(nextWindowStart(window, NY, at('2026-11-01T00:00:00-04:00'))).toBe(
			at('2026-11-01T01:30:00-04:00'),
		);
		expect(isInsideWindow(window, NY, at('2026-11-01T01:10:00-05:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-11-01T04:59:59-05:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-11-01T05:00:00-05:00'))).toBe(false);
	});

	test('New York, fall back: a window until 01:30 closes at the first 01:30 and does not open again in the repeat', () => {
		const window = hours('00:00', '01:30', [SUN]);
		expect(isInsideWindow(window, NY, at('2026-11-01T01:29:59-04:00'))).toBe(true);
		expect(isInsideWindow(window, NY, at('2026-11-01T01:30:00-04:00'))).toBe(false);
		expect(isInsideWindow(window, NY, at('2026-11-01T01:10:00-05:00'))).toBe(false);
		expect(nextWindowStart(window, NY, at('2026-11-01T01:10:00-05:00'))).toBe(
			at('2026-11-08T00:00:00-05:00'),
		);
	});

	test('New York, spring forward: a window wholly inside the skipped hour does not open that day', () => {
		const window = hours('02:10', '02:40', [SUN]);
		expect(nextWindowStart(window, NY, at('2026-03-08T01:00:00-05:00'))).toBe(
			at('2026-03-15T02:10:00-04:00'),
		);
	});

	test('London (2026-03-29 and 2026-10-25): 01:15 opens at 02:00 BST; 01:30 opens at the first 01:30', () => {
		expect(
			nextWindowStart(hours('01:15', '03:00', [SUN]), LONDON, at('2026-03-29T00:00:00Z')),
		).toBe(at('2026-03-29T02:00:00+01:00'));
		const autumn = hours('01:30', '02:30', [SUN]);
		expect(nextWindowStart(autumn, LONDON, at('2026-10-25T00:00:00+01:00'))).toBe(
			at('2026-10-25T01:30:00+01:00'),
		);
		expect(isInsideWindow(autumn, LONDON, at('2026-10-25T01:10:00+00:00'))).toBe(true);
		expect(isInsideWindow(autumn, LONDON, at('2026-10-25T02:30:00+00:00'))).toBe(false);
	});

	test('Sydney (2026-10-04 and 2026-04-05): 02:30 opens at 03:00 AEDT; in April at the first 02:30 (AEDT)', () => {
		const window = hours('02:30', '04:00', [SUN]);
		expect(nextWindowStart(window, SYDNEY, at('2026-10-04T00:00:00+10:00'))).toBe(
			at('2026-10-04T03:00:00+11:00'),
		);
		expect(nextWindowStart(window, SYDNEY, at('2026-04-05T00:00:00+11:00'))).toBe(
			at('2026-04-05T02:30:00+11:00'),
		);
		expect(isInsideWindow(window, SYDNEY, at('2026-04-05T02:10:00+10:00'))).toBe(true);
		expect(isInsideWindow(window, SYDNEY, at('2026-04-05T04:00:00+10:00'))).toBe(false);
	});
});

describe('numbers in several zones: inside only when inside in every one', () => {
	const window = hours('09:00', '20:00', WEEKDAYS);

	test('+1 208 2… (Boise and Los Angeles): from 09:00 Pacific to 20:00 Mountain', () => {
		const zones = zonesOfNumber('+12082')!;
		expect(nextWindowStart(window, zones, at('2026-11-25T07:00:00-08:00'))).toBe(
			at('2026-11-25T09:00:00-08:00'),
		);
		expect(isInsideWindow(window, zones, at('2026-11-25T18:59:59-08:00'))).toBe(true);
		expect(isInsideWindow(window, zones, at('2026-11-25T19:00:00-08:00'))).toBe(false);
		expect(nextWindowStart(window, zones, at('2026-11-25T19:00:00-08:00'))).toBe(
			at('2026-11-26T09:00:00-08:00'),
		);
	});

	test('+1 alone (42 zones from Guam to St John’s): the window holds everywhere only 23:00–23:30 UTC', () => {
		const zones = zonesOfNumber('+1')!;
		expect(nextWindowStart(window, zones, at('2026-11-25T12:00:00Z'))).toBe(
			at('2026-11-25T23:00:00Z'),
		);
		expect(isInsideWindow(window, zones, at('2026-11-25T23:29:59Z'))).toBe(true);
		expect(isInsideWindow(window, zones, at('2026-11-25T23:30:00Z'))).toBe(false);
	});

	test('+7 alone (16 zones, UTC+2 to UTC+12): 09:00–21:00 overlaps 07:00–09:00 UTC', () => {
		const zones = zonesOfNumber('+7')!;
		const everyDay = hours('09:00', '21:00', EVERY_DAY);
		expect(nextWindowStart(everyDay, zones, at('2026-11-25T00:00:00Z'))).toBe(
			at('2026-11-25T07:00:00Z'),
		);
		expect(isInsideWindow(everyDay, zones, at('2026-11-25T08:59:59Z'))).toBe(true);
		expect(isInsideWindow(everyDay, zones, at('2026-11-25T09:00:00Z'))).toBe(false);
	});

	test('zones whose windows never overlap within 8 days: no next start', () => {
		expect(
			nextWindowStart(
				hours('09:00', '12:00', EVERY_DAY),
				['Pacific/Honolulu', 'Asia/Tokyo'],
				at('2026-11-25T00:00:00Z'),
			),
		).toBeUndefined();
		expect(
			nextWindowStart(
				hours('09:00', '17:00', WEEKDAYS),
				['Europe/London', 'Australia/Sydney'],
				at('2026-11-25T00:00:00Z'),
			),
		).toBeUndefined();
	});
});

describe('windows that never open, and zones that do not exist', () => {
	const now = at('2026-11-25T12:00:00Z');

	test('no zones, no days, or from equal to until: never inside, no next start', () => {
		expect(isInsideWindow(hours('00:00', '24:00', EVERY_DAY), [], now)).toBe(false);
		expect(nextWindowStart(hours('00:00', '24:00', EVERY_DAY), [], now)).toBeUndefined();
		expect(nextWindowStart(hours('09:00', '20:00', []), NY, now)).toBeUndefined();
		expect(nextWindowStart(hours('09:00', '09:00', EVERY_DAY), NY, now)).toBeUndefined();
	});

	test('a zone Intl does not know is a RangeError, not a guess', () => {
		expect(() =>
			isInsideWindow(hours('09:00', '20:00', WEEKDAYS), ['Mars/Olympus_Mons'], now),
		).toThrow(RangeError);
	});
});

test('isoWithOffset: the local time to the second and the offset of that instant', () => {
	const instant = at('2026-11-26T14:00:05.999Z');
	expect(isoWithOffset(instant, 'America/New_York')).toBe('2026-11-26T09:00:05-05:00');
	expect(isoWithOffset(instant, 'UTC')).toBe('2026-11-26T14:00:05+00:00');
	expect(isoWithOffset(instant, 'Asia/Kolkata')).toBe('2026-11-26T19:30:05+05:30');
	expect(isoWithOffset(instant, 'Pacific/Chatham')).toBe('2026-11-27T03:45:05+13:45');
	expect(isoWithOffset(instant, 'America/St_Johns')).toBe('2026-11-26T10:30:05-03:30');
	expect(isoWithOffset(instant, 'Pacific/Kiritimati')).toBe('2026-11-27T04:00:05+14:00');
	expect(isoWithOffset(at('2026-07-01T12:00:00Z'), 'America/New_York')).toBe(
		'2026-07-01T08:00:00-04:00',
	);
	expect(Date.parse(isoWithOffset(instant, 'Pacific/Chatham'))).toBe(at('2026-11-26T14:00:05Z'));
});
