/**
 * The live profile's lists: newest first, a cursor that is the last item's created_at cut to the second
 * and a next page of `created_at < cursor` (the seam that loses calls placed several a second), `limit`
 * without maximum, and the filters.
 */
import { listAll } from '../support/api.cts';
import { useSandbox } from '../support/sandbox.cts';
import { LIVE_AGENT_FIELDS, liveAgent, liveCall, micros, okRow, secondOf } from './liveHelpers.cts';

const LIVE = 'live-key';
const DOCUMENTED = 'documented-key';
const sandbox = useSandbox({
	apiKeys: [LIVE, DOCUMENTED],
	profiles: { [LIVE]: 'live' },
	ringMs: 3_600_000,
	callDurationMs: 3_600_000,
});

interface Row {
	id: number;
	created_at: string;
}

/** Pages of GET /calls as a client follows cursors until a page comes without one. */
async function followCursors(limit: number, query: Record<string, string | number> = {}) {
	const pages: { num_items: number; cursor?: string; calls: Row[] }[] = [];
	let cursor: string | undefined;
	do {
		const page = okRow(await sandbox.api('GET', '/calls', { query: { ...query, limit, cursor } }));
		expect(page.num_items).toBe(page.calls.length);
		pages.push(page);
		cursor = page.cursor;
	} while (cursor !== undefined);
	return pages;
}

/**
 * The live service's paging, modelled from the rows' own times: a full page's cursor is its last item's
 * second, and the next page is what was created before that second.
 */
function modelPages(all: Row[], limit: number): Row[][] {
	const pages: Row[][] = [];
	let rest = all;
	for (;;) {
		const page = rest.slice(0, limit);
		pages.push(page);
		if (page.length < limit) return pages;
		const cursor = secondOf(page[page.length - 1].created_at);
		rest = rest.filter((call) => secondOf(call.created_at) < cursor);
	}
}

const idsOf = (rows: Row[]) => rows.map((row) => row.id);

describe('the cursor seam', () => {
	test('calls created earlier in the second of a page\u2019s last call are never served', async () => {
		expect(await sandbox.seed({ api_key: LIVE, calls: 250, calls_per_second: 30 })).toMatchObject({
			calls_created: 250,
		});
		const all: Row[] = okRow(
			await sandbox.api('GET', '/calls', { key: LIVE, query: { limit: 5000 } }),
		).calls;
		expect(all).toHaveLength(250);
		const times = all.map((call) => micros(call.created_at));
		expect(times).toEqual([...times].sort((a, b) => b - a)); // newest first
		// Several calls share each second: 30 a second.
		expect(new Set(all.map((call) => secondOf(call.created_at))).size).toBeLessThanOrEqual(10);
		// A page size whose last call shares its second with the next one, so the seam cuts a second.
		const limit = [100, 101, 102].find(
			(size) => secondOf(all[size - 1].created_at) === secondOf(all[size].created_at),
		)!;

		const pages = await followCursors(limit, {});
		const served = pages.flatMap((page) => page.calls);
		const model = modelPages(all, limit);
		expect(pages.map((page) => idsOf(page.calls))).toEqual(model.map(idsOf));
		for (const [index, page] of pages.slice(0, -1).entries()) {
			expect(page.cursor).toBe(secondOf(page.calls[page.calls.length - 1].created_at));
			expect(page.cursor).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
			const cursor = page.cursor!;
			expect(pages[index + 1].calls.every((call) => secondOf(call.created_at) < cursor)).toBe(true);
		}

		const lost = all.filter((call) => !served.some((seen) => seen.id === call.id));
		expect(lost.length).toBeGreaterThan(0);
		expect(new Set(idsOf(served)).size).toBe(served.length);
		// Every lost call shares its second with the last call of a page: lost at that page's seam.
		const seams = pages.slice(0, -1).map((page) => page.cursor);
		expect(lost.every((call) => seams.includes(secondOf(call.created_at)))).toBe(true);
	});

	test('the cursor is a time: reading the seam again from the next second finds the lost calls', async () => {
		await sandbox.seed({ api_key: LIVE, calls: 120, calls_per_second: 30 });
		const all: Row[] = okRow(await sandbox.api('GET', '/calls', { query: { limit: 200 } })).calls;
		const first = okRow(await sandbox.api('GET', '/calls', { query: { limit: 50 } }));
		const seam = first.cursor as string;
		const next = new Date(Date.parse(seam) + 1000).toISOString().replace('.000Z', 'Z');
		const again = okRow(await sandbox.api('GET', '/calls', { query: { limit: 50, cursor: next } }));
		const inSeam = all.filter((call) => secondOf(call.created_at) === seam);
		expect(idsOf(again.calls.slice(0, inSeam.length))).toEqual(idsOf(inSeam));
	});

	test('a documented key pages the same burst without loss (its cursor is a keyset)', async () => {
		await sandbox.seed({ api_key: DOCUMENTED, calls: 250, calls_per_second: 30 });
		const calls = await listAll(sandbox, 'calls', { limit: 100 }, DOCUMENTED);
		expect(new Set(calls.map((call) => call.id)).size).toBe(250);
	});

	test('GET /agents pages the same way, numeric ids and whole rows', async () => {
		await sandbox.seed({ api_key: LIVE, agents: 12 });
		const first = okRow(await sandbox.api('GET', '/agents', { query: { limit: 5 } }));
		expect(first.num_items).toBe(5);
		expect(Object.keys(first.agents[0]).sort()).toEqual(LIVE_AGENT_FIELDS);
		expect(first.agents.every((agent: Row) => Number.isInteger(agent.id))).toBe(true);
		expect(first.cursor).toBe(secondOf(first.agents[4].created_at));
		const rest = okRow(
			await sandbox.api('GET', '/agents', { query: { limit: 100, cursor: first.cursor } }),
		);
		expect(rest).not.toHaveProperty('cursor');
		expect(rest.agents.every((agent: Row) => secondOf(agent.created_at) < first.cursor)).toBe(true);
	});
});

describe('limit and cursor', () => {
	test('limit: default 10, no maximum (5000 gives 5000); a full last page is followed by an empty one', async () => {
		await sandbox.seed({ api_key: LIVE, calls: 5001, calls_per_second: 1000 });
		const byDefault = okRow(await sandbox.api('GET', '/calls'));
		expect(byDefault.num_items).toBe(10);
		expect(typeof byDefault.cursor).toBe('string');
		const big = okRow(await sandbox.api('GET', '/calls', { query: { limit: 5000 } }));
		expect(big.num_items).toBe(5000);
		expect(big.calls).toHaveLength(5000);

		await sandbox.reset();
		await sandbox.seed({ api_key: LIVE, calls: 20 });
		const pages = await followCursors(10);
		expect(pages.map((page) => page.num_items)).toEqual([10, 10, 0]);
		expect(pages[2]).toEqual({ num_items: 0, calls: [] });
	});

	test('limit not a number: 400 Invalid limit parameter; an empty limit is the default', async () => {
		for (const limit of ['abc', '1.5', '10abc', '9999999999999999999999']) {
			const result = await sandbox.api('GET', '/calls', { query: { limit } });
			expect([result.status, result.text]).toEqual([400, 'Invalid limit parameter\n']);
		}
		expect((await sandbox.api('GET', '/agents', { query: { limit: 'x' } })).text).toBe(
			'Invalid limit parameter\n',
		);
		expect(okRow(await sandbox.api('GET', '/calls', { query: { limit: '' } }))).toEqual({
			num_items: 0,
			calls: [],
		});
	});

	test('limit 0 or negative: no answer at all, the connection is closed', async () => {
		for (const [path, limit] of [
			['/calls', '0'],
			['/calls', '-5'],
			['/agents', '0'],
		]) {
			await expect(sandbox.api('GET', path, { query: { limit } })).rejects.toThrow();
		}
		const logged = await sandbox.requests();
		expect(logged.map((request) => request.status)).toEqual([null, null, null]);
	});

	test('a cursor that is not a time is a 500; any time the database reads is a cursor', async () => {
		const agent = await liveAgent(sandbox, { name: 'Lister' });
		await liveCall(sandbox, agent);
		for (const cursor of ['abc', 'MjAyNA', '2024-13-40T00:00:00Z']) {
			const result = await sandbox.api('GET', '/calls', { query: { cursor } });
			expect([result.status, result.text]).toEqual([500, 'Failed to fetch calls\n']);
		}
		for (const cursor of [
			'2999-01-01T00:00:00Z',
			'2999-01-01 00:00:00',
			'2999-01-01T01:00:00+01:00',
		]) {
			expect(okRow(await sandbox.api('GET', '/calls', { query: { cursor } })).num_items).toBe(1);
		}
		expect(
			okRow(await sandbox.api('GET', '/calls', { query: { cursor: '2000-01-01T00:00:00Z' } })),
		).toEqual({ num_items: 0, calls: [] });
	});
});

describe('filters', () => {
	test('agent_id (a number) and client_number (exact, once the call has connected)', async () => {
		const one = await liveAgent(sandbox, { name: 'One' });
		const two = await liveAgent(sandbox, { name: 'Two' });
		const a = await liveCall(sandbox, one, { to: '+14155550111' });
		const b = await liveCall(sandbox, two, { to: '+14155550111' });
		await liveCall(sandbox, two, { to: '+14155550112' });

		const byAgent = okRow(await sandbox.api('GET', '/calls', { query: { agent_id: two.id } }));
		expect(byAgent.calls.map((call: Row) => call.id).sort()).toEqual([b.id, b.id + 1]);
		const bad = await sandbox.api('GET', '/calls', { query: { agent_id: 'agt_1' } });
		expect([bad.status, bad.text]).toEqual([400, 'Invalid agent_id parameter\n']);

		// Ringing calls have no client_number yet.
		const ringing = okRow(
			await sandbox.api('GET', '/calls', { query: { client_number: '+14155550111' } }),
		);
		expect(ringing.num_items).toBe(0);
		for (const call of [a, b]) await sandbox.control('POST', `/calls/${call.id}/connect`);
		const both = okRow(
			await sandbox.api('GET', '/calls', { query: { client_number: '+14155550111' } }),
		);
		expect(both.calls.map((call: Row) => call.id).sort()).toEqual([a.id, b.id]);
		const inexact = okRow(
			await sandbox.api('GET', '/calls', { query: { client_number: '14155550111' } }),
		);
		expect(inexact.num_items).toBe(0);
		const combined = okRow(
			await sandbox.api('GET', '/calls', {
				query: { client_number: '+14155550111', agent_id: one.id },
			}),
		);
		expect(combined.calls.map((call: Row) => call.id)).toEqual([a.id]);
	});

	test('list_lag_ms applies to a live key: a new call is listed only after the lag', async () => {
		const agent = await liveAgent(sandbox, { name: 'Lagging' });
		await sandbox.variants({ list_lag_ms: 60_000 });
		const call = await liveCall(sandbox, agent);
		expect(okRow(await sandbox.api('GET', '/calls')).num_items).toBe(0);
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).status).toBe(200);
	});
});
