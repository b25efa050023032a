/**
 * The seam of a list whose cursor is a time (nodes/shared/transport/seam.ts), case by case: which cursors
 * read as times (against JavaScript's own Date.parse as the oracle), the position after a page, what it
 * refuses, and the editor's page token. The property over a model of the live list is seam.properties.
 */
import fc from 'fast-check';

import {
	cursorAt,
	positionOfToken,
	positionToken,
	readSeam,
	secondOf,
} from '../../../../nodes/shared/transport/seam';
import { propertyParameters } from '../../../support/properties.cts';

const call = (id: string, created_at?: string) => ({ id, created_at });

describe('secondOf: which cursors read as a time', () => {
	test('an RFC 3339 time with a zone names the second Date.parse names, its fraction cut off', () => {
		fc.assert(
			fc.property(
				fc.date({
					min: new Date('1970-01-01T00:00:00Z'),
					max: new Date('2999-12-31T23:59:59Z'),
					noInvalidDate: true,
				}),
				fc.constantFrom('', '.2', '.200158', '.999999999'),
				fc.constantFrom('Z', '+00:00', '+05:30', '-08:00', '+14:00'),
				(date, fraction, zone) => {
					const utc = new Date(Math.floor(date.getTime() / 1000) * 1000);
					// The same instant written at the zone's offset.
					const offsetMin =
						zone === 'Z'
							? 0
							: (zone[0] === '-' ? -1 : 1) *
								(Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
					const wall = new Date(utc.getTime() + offsetMin * 60_000).toISOString().slice(0, 19);
					const written = `${wall}${fraction}${zone}`;
					expect(secondOf(written)).toEqual({ ms: utc.getTime(), zoned: true });
					expect(secondOf(written)?.ms).toBe(Math.floor(Date.parse(written) / 1000) * 1000);
				},
			),
			propertyParameters(500),
		);
	});

	test('the live service cursor, a time without a zone (UTC, as the service reads it), and what is no time', () => {
		expect(secondOf('2024-05-16T21:32:38Z')).toEqual({
			ms: Date.parse('2024-05-16T21:32:38Z'),
			zoned: true,
		});
		expect(secondOf('2024-05-16 21:32:38.5')).toEqual({
			ms: Date.parse('2024-05-16T21:32:38Z'),
			zoned: false,
		});
		expect(secondOf('0001-01-01T00:00:00Z')?.ms).toBe(Date.parse('0001-01-01T00:00:00Z'));
		for (const notTime of [
			'c_same',
			'MjAyNi0wNS0xNlQyMTozMjozOC4yMDBa',
			'2024-05-16',
			'2024-05-16T21:32Z',
			'2024-02-30T10:00:00Z',
			'2024-05-16T24:00:00Z',
			'',
			undefined,
			1715895158,
		])
			expect(secondOf(notTime)).toBeUndefined();
	});

	test('a cursor is written as the service writes its own', () => {
		expect(cursorAt(Date.parse('2024-05-16T21:32:39Z'), true)).toBe('2024-05-16T21:32:39Z');
		expect(cursorAt(Date.parse('2024-05-16T21:32:39Z'), false)).toBe('2024-05-16T21:32:39');
	});
});

describe('readSeam: the position after a page', () => {
	const page = [
		call('9', '2024-05-16T21:32:40.1Z'),
		call('8', '2024-05-16T21:32:38.9Z'),
		call('7', '2024-05-16T21:32:38.2Z'),
	];

	test('a time cursor: the next page from the second after the last call, its second kept by id', () => {
		expect(readSeam({}, page, '2024-05-16T21:32:38Z')).toEqual({
			fresh: page,
			next: { cursor: '2024-05-16T21:32:39Z', seen: ['8', '7'] },
		});
	});

	test('the page after the seam: the calls of the seam second already output are dropped', () => {
		const again = [
			call('8', '2024-05-16T21:32:38.9Z'),
			call('7', '2024-05-16T21:32:38.2Z'),
			call('6', '2024-05-16T21:32:38.1Z'),
			call('5', '2024-05-16T21:32:37.5Z'),
		];
		expect(
			readSeam({ cursor: '2024-05-16T21:32:39Z', seen: ['8', '7'] }, again, '2024-05-16T21:32:37Z'),
		).toEqual({
			fresh: again.slice(2),
			next: { cursor: '2024-05-16T21:32:38Z', seen: ['5'] },
		});
	});

	test('one second longer than a page: the same cursor again, with every id of that second so far', () => {
		const second = [
			call('8', '2024-05-16T21:32:38.9Z'),
			call('7', '2024-05-16T21:32:38.8Z'),
			call('6', '2024-05-16T21:32:38.7Z'),
		];
		expect(
			readSeam({ cursor: '2024-05-16T21:32:39Z', seen: ['8'] }, second, '2024-05-16T21:32:38Z'),
		).toEqual({
			fresh: second.slice(1),
			next: { cursor: '2024-05-16T21:32:39Z', seen: ['8', '7', '6'] },
		});
	});

	test('a page that serves nothing new and points at itself again is a loop', () => {
		const same = [call('8', '2024-05-16T21:32:38.9Z'), call('7', '2024-05-16T21:32:38.8Z')];
		expect(
			readSeam({ cursor: '2024-05-16T21:32:39Z', seen: ['8', '7'] }, same, '2024-05-16T21:32:38Z')
				.problem,
		).toBe('repeated');
		// The last page (no cursor) that serves nothing new is just the end.
		expect(readSeam({ cursor: '2024-05-16T21:32:39Z', seen: ['8', '7'] }, same, undefined)).toEqual(
			{ fresh: [] },
		);
	});

	test('a page asked from a second that serves calls of that second or later is refused (never output twice)', () => {
		const shifted = [call('9', '2024-05-16T21:32:40.1Z'), call('5', '2024-05-16T21:32:37.5Z')];
		expect(
			readSeam({ cursor: '2024-05-16T21:32:39Z', seen: ['8'] }, shifted, undefined).problem,
		).toBe('newer');
	});

	test('an opaque cursor (the documented one) is passed on as the service gave it, nothing kept', () => {
		expect(readSeam({}, page, 'Y3Vyc29yfDE3')).toEqual({
			fresh: page,
			next: { cursor: 'Y3Vyc29yfDE3' },
		});
		expect(readSeam({ cursor: 'Y3Vyc29yfDE3' }, page, undefined)).toEqual({ fresh: page });
	});

	test("a last call whose time cannot be read: the service's cursor's second; unreadable times are kept", () => {
		const odd = [call('8', '2024-05-16T21:32:38.9Z'), call('7', 'yesterday'), call('6')];
		expect(readSeam({}, odd, '2024-05-16T21:32:38Z')).toEqual({
			fresh: odd,
			next: { cursor: '2024-05-16T21:32:39Z', seen: ['8', '7', '6'] },
		});
	});

	test('a time cursor without a zone gives one without a zone', () => {
		const local = [call('8', '2024-05-16 21:32:38.9')];
		expect(readSeam({}, local, '2024-05-16 21:32:38').next).toEqual({
			cursor: '2024-05-16T21:32:39',
			seen: ['8'],
		});
	});
});

test('a position as a token of the editor: the cursor alone, or JSON with the seam', () => {
	expect(positionToken(undefined)).toBeUndefined();
	expect(positionToken({ cursor: 'Y3Vyc29y' })).toBe('Y3Vyc29y');
	const seam = { cursor: '2024-05-16T21:32:39Z', seen: ['8', '7'] };
	expect(positionOfToken(positionToken(seam))).toEqual(seam);
	expect(positionOfToken('Y3Vyc29y')).toEqual({ cursor: 'Y3Vyc29y' });
	expect(positionOfToken('{not json')).toEqual({ cursor: '{not json' });
	expect(positionOfToken('')).toEqual({});
});

describe('readSeam: times the nodes read otherwise than the service', () => {
	test('a cursor that cuts to the minute: the second after the last call is read again', () => {
		const page = [call('8', '2024-05-16T21:32:40.9Z'), call('7', '2024-05-16T21:32:38.2Z')];
		expect(readSeam({}, page, '2024-05-16T21:32:00Z').next).toEqual({
			cursor: '2024-05-16T21:32:39Z',
			seen: ['7'],
		});
	});

	test('calls whose times read as older than the cursor (a zone the service writes and the nodes do not): the cursor\u2019s second again, every id of the page kept', () => {
		const page = [call('8', '2024-05-16 16:32:40.9'), call('7', '2024-05-16 16:32:38.2')];
		expect(readSeam({}, page, '2024-05-16T21:32:38Z').next).toEqual({
			cursor: '2024-05-16T21:32:39Z',
			seen: ['8', '7'],
		});
	});
});
