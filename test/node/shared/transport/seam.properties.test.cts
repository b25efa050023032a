/**
 * Pages lose nothing at the seam, as a property over a model of the live service's list (pure: no HTTP).
 * The model answers as the live service's code does: newest first by `created_at` (microseconds), calls of
 * one microsecond in any order (it has no tie-break: drawn anew for every request), a full page carries its
 * last call's `created_at` cut to the second as the cursor, the next page holds only calls created before
 * it. Drawn: histories of bursts (up to 300 calls in one second, several in one microsecond), the page
 * size asked for, Return All or a Limit, and a service that serves at most 100 per page whatever it is
 * asked. Checked, for every read: no call is output twice; every call is output (Return All) or the
 * newest `limit` are (Limit), unless the read stopped with a loop, which only a second holding a whole
 * clamped page can cause; the ids kept never outnumber one second's calls; requests stay within
 * ceil(N / page) + 1 (a list whose length is a multiple of the page ends with an empty page).
 */
import fc from 'fast-check';

import { readSeam, type PagePosition } from '../../../../nodes/shared/transport/seam';
import { propertyParameters } from '../../../support/properties.cts';

interface Row {
	id: string;
	/** Microseconds since the epoch. */
	us: number;
	created_at: string;
}

const START_US = Date.UTC(2026, 4, 16, 21, 32, 0) * 1000;

/** Go's RFC3339Nano of a time kept to the microsecond: trailing zeros of the fraction trimmed. */
function rfc3339(us: number): string {
	const whole = new Date(Math.floor(us / 1e6) * 1000).toISOString().slice(0, 19);
	const fraction = String(us % 1e6)
		.padStart(6, '0')
		.replace(/0+$/, '');
	return `${whole}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/** A history: bursts of calls, each burst `count` calls `gapUs` apart, the bursts `pauseUs` apart. */
const history = fc
	.array(
		fc.record({
			count: fc.integer({ min: 1, max: 300 }),
			gapUs: fc.constantFrom(0, 1, 3_333, 33_333, 250_000, 1_000_000),
			pauseUs: fc.integer({ min: 0, max: 5_000_000 }),
		}),
		{ minLength: 1, maxLength: 6 },
	)
	.map((bursts) => {
		const rows: Row[] = [];
		let us = START_US;
		for (const burst of bursts) {
			us += burst.pauseUs;
			for (let n = 0; n < burst.count; n++) {
				us += n === 0 ? 0 : burst.gapUs;
				rows.push({ id: String(5001 + rows.length), us, created_at: rfc3339(us) });
			}
		}
		return rows;
	});

interface Service {
	rows: Row[];
	/** The most the service serves on a page, whatever it is asked; undefined: no maximum (the live one). */
	clamp?: number;
	shuffle: (rows: Row[]) => Row[];
	requests: number;
}

/** GET /calls?limit&cursor as the live service answers it. */
function servePage(service: Service, limit: number, cursor: string | undefined) {
	service.requests++;
	const beforeUs = cursor === undefined ? Infinity : Date.parse(cursor) * 1000;
	const older = service.rows.filter((row) => row.us < beforeUs);
	// Newest first; calls of one microsecond in an order of this request's own.
	const byUs = new Map<number, Row[]>();
	for (const row of older) byUs.set(row.us, [...(byUs.get(row.us) ?? []), row]);
	const ordered = [...byUs.keys()]
		.sort((a, b) => b - a)
		.flatMap((us) => service.shuffle(byUs.get(us) as Row[]));
	const served = ordered.slice(0, Math.min(limit, service.clamp ?? Infinity));
	// A full page (as many as it serves at most) carries its last call's second; the next page is older.
	const full = served.length === Math.min(limit, service.clamp ?? Infinity);
	const last = served[served.length - 1];
	const next = full && last ? rfc3339(Math.floor(last.us / 1e6) * 1e6) : undefined;
	return { items: served.map(({ id, created_at }) => ({ id, created_at })), cursor: next };
}

interface Read {
	ids: string[];
	loop: boolean;
	mostKept: number;
}

/** A reader as `cursorPages` reads: `want` new calls a page (a Limit: what is missing), the seam's ids dropped. */
function readAll(service: Service, pageSize: number, max?: number): Read {
	const read: Read = { ids: [], loop: false, mostKept: 0 };
	let at: PagePosition = {};
	for (let guard = 0; guard < 100_000; guard++) {
		const want = max === undefined ? pageSize : Math.min(pageSize, max - read.ids.length);
		const page = servePage(service, want + (at.seen?.length ?? 0), at.cursor);
		const seam = readSeam(at, page.items, page.cursor);
		expect(seam.problem).not.toBe('newer');
		if (seam.problem === 'repeated') return { ...read, loop: true };
		for (const item of seam.fresh) {
			if (max !== undefined && read.ids.length >= max) break;
			read.ids.push(item.id);
		}
		read.mostKept = Math.max(read.mostKept, seam.next?.seen?.length ?? 0);
		if (!seam.next || (max !== undefined && read.ids.length >= max)) return read;
		at = seam.next;
	}
	throw new Error('the reader did not stop');
}

const mostInOneSecond = (rows: Row[]) => {
	const counts = new Map<number, number>();
	for (const row of rows) {
		const second = Math.floor(row.us / 1e6);
		counts.set(second, (counts.get(second) ?? 0) + 1);
	}
	return Math.max(...counts.values());
};

test('every call once across the seams of the live list, with one second of ids kept at most', () => {
	fc.assert(
		fc.property(
			history,
			fc.integer({ min: 1, max: 100 }),
			fc.option(fc.integer({ min: 1, max: 700 }), { nil: undefined }),
			fc.option(fc.constantFrom(100, 150), { nil: undefined }),
			fc.infiniteStream(fc.boolean()),
			(rows, pageSize, max, clamp, coins) => {
				const shuffle = (tied: Row[]) =>
					tied.length < 2 ? tied : coins.next().value ? [...tied].reverse() : tied;
				const service: Service = { rows, clamp, shuffle, requests: 0 };
				const read = readAll(service, pageSize, max);
				const newestFirst = [...rows].sort((a, b) => b.us - a.us);
				// Never twice.
				expect(new Set(read.ids).size).toBe(read.ids.length);
				const busiest = mostInOneSecond(rows);
				expect(read.mostKept).toBeLessThanOrEqual(busiest);
				if (read.loop) {
					// Only a service serving fewer than asked, and a second holding all it serves.
					expect(clamp).toBeDefined();
					expect(busiest).toBeGreaterThanOrEqual(clamp as number);
					return;
				}
				const expected = max === undefined ? rows.length : Math.min(max, rows.length);
				expect(read.ids).toHaveLength(expected);
				const allIds = new Set(rows.map((row) => row.id));
				expect(read.ids.every((id) => allIds.has(id))).toBe(true);
				if (max !== undefined) {
					// The newest `max`: none older than the oldest output is left out.
					const output = new Set(read.ids);
					const oldestOutput = Math.min(
						...rows.filter((row) => output.has(row.id)).map((row) => row.us),
					);
					const missed = newestFirst.filter((row) => row.us > oldestOutput && !output.has(row.id));
					expect(missed).toEqual([]);
				}
				if (clamp === undefined)
					expect(service.requests).toBeLessThanOrEqual(Math.ceil(expected / pageSize) + 1);
			},
		),
		propertyParameters(300),
	);
});
