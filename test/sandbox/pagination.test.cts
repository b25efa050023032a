import { createAgent, listAll, placeCall } from '../support/api.cts';
import { ids } from '../support/fixtures.cts';
import { useSandbox } from '../support/sandbox.cts';
import { compareNewestFirst } from './helpers.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

function expectNewestFirst(items: { id: string; created_at: string }[]) {
	expect(ids(items)).toEqual(ids([...items].sort(compareNewestFirst)));
}

describe('GET /calls pages', () => {
	test('newest first, limit per page, num_items, and no cursor on the last page', async () => {
		await sandbox.seed({ agents: 2, calls: 25 });
		const pages = [];
		let cursor: string | undefined;
		do {
			const { status, body } = await sandbox.api('GET', '/calls', { query: { limit: 10, cursor } });
			expect(status).toBe(200);
			pages.push(body);
			cursor = body.cursor || undefined;
		} while (cursor);

		expect(pages.map((page) => page.num_items)).toEqual([10, 10, 5]);
		expect(pages.map((page) => page.calls.length)).toEqual([10, 10, 5]);
		expect(typeof pages[0].cursor).toBe('string');
		expect(pages[2].cursor ?? '').toBe('');
		const calls = pages.flatMap((page) => page.calls);
		expect(new Set(ids(calls)).size).toBe(25);
		expectNewestFirst(calls);
	});

	test('calls created while a client pages cause no duplicate and no gap among the older calls', async () => {
		await sandbox.seed({ agents: 1, calls: 25 });
		const before = await listAll(sandbox, 'calls', { limit: 100 });
		const [agent] = await listAll(sandbox, 'agents');

		const seen: string[] = [];
		let cursor: string | undefined;
		let round = 0;
		do {
			const { body } = await sandbox.api('GET', '/calls', { query: { limit: 10, cursor } });
			seen.push(...ids(body.calls));
			cursor = body.cursor || undefined;
			// New calls between pages, as a live service would have.
			for (let i = 0; i <= round; i++)
				await placeCall(sandbox, agent, { context: `new ${round}.${i}` });
			round++;
		} while (cursor);

		expect(seen).toEqual(ids(before));
		const after = await listAll(sandbox, 'calls', { limit: 100 });
		expect(after).toHaveLength(25 + 1 + 2 + 3);
		expect(ids(after.slice(6))).toEqual(ids(before));
		expect(after.slice(0, 6).every((call) => call.context.startsWith('new '))).toBe(true);
	});

	test('a cursor still works after the item it came from is gone (keyset, not offset)', async () => {
		await sandbox.seed({ agents: 3, calls: 30 });
		const all = await listAll(sandbox, 'agents');
		const first = await sandbox.api('GET', '/agents', { query: { limit: 1 } });
		await sandbox.api('DELETE', '/agent', { query: { id: first.body.agents[0].id } });

		const rest = await sandbox.api('GET', '/agents', {
			query: { limit: 10, cursor: first.body.cursor },
		});
		expect(ids(rest.body.agents)).toEqual(ids(all.slice(1)));
	});
});

describe('limit', () => {
	test('defaults to 10', async () => {
		await sandbox.seed({ agents: 1, calls: 15 });
		const { body } = await sandbox.api('GET', '/calls');

		expect(body.num_items).toBe(10);
		expect(body.cursor).toEqual(expect.any(String));
	});

	test('serves at most 100, also when more is asked for', async () => {
		await sandbox.seed({ agents: 1, calls: 130 });
		expect((await sandbox.api('GET', '/calls', { query: { limit: 100 } })).body.num_items).toBe(
			100,
		);
		const { status, body } = await sandbox.api('GET', '/calls', { query: { limit: 150 } });
		expect(status).toBe(200);
		expect(body.num_items).toBe(100);
		expect((await sandbox.api('GET', '/calls', { query: { limit: 1 } })).body.num_items).toBe(1);
	});

	test.each(['0', '-1', 'ten', '2.5', '1e2', ''])(
		'answers 400 for limit=%j on both lists',
		async (limit) => {
			for (const list of ['/calls', '/agents']) {
				const url = new URL(`${sandbox.baseUrl}${list}?limit=${encodeURIComponent(limit)}`);
				const response = await fetch(url, {
					headers: { authorization: `Bearer ${sandbox.apiKey}` },
				});
				const body = await response.json();
				expect(response.status).toBe(400);
				expect(body).toEqual({ error: 'Bad Request', message: expect.stringMatching(/^limit/) });
			}
		},
	);
});

describe('cursor', () => {
	test.each(['garbage', 'not a cursor!', Buffer.from('calls|x|y').toString('base64url')])(
		'answers 400 for cursor=%j',
		async (cursor) => {
			const { status, body } = await sandbox.api('GET', '/calls', { query: { cursor } });

			expect(status).toBe(400);
			expect(body.message).toMatch(/^cursor/);
		},
	);

	test('answers 400 for a cursor of the other list', async () => {
		await sandbox.seed({ agents: 3, calls: 3 });
		const agentsCursor = (await sandbox.api('GET', '/agents', { query: { limit: 1 } })).body.cursor;

		expect((await sandbox.api('GET', '/calls', { query: { cursor: agentsCursor } })).status).toBe(
			400,
		);
	});

	test('an empty cursor is the first page', async () => {
		await sandbox.seed({ agents: 1, calls: 3 });
		const first = await sandbox.api('GET', '/calls');

		expect((await sandbox.api('GET', '/calls', { query: { cursor: '' } })).body).toEqual(
			first.body,
		);
	});
});

describe('GET /agents pages', () => {
	test('covers every agent once, newest first', async () => {
		const created = new Set<string>();
		for (let i = 0; i < 12; i++)
			created.add((await createAgent(sandbox, { name: `Agent ${i}` })).id);
		await sandbox.seed({ agents: 3 }); // older agents, created days ago

		const pages = [];
		let cursor: string | undefined;
		do {
			const { body } = await sandbox.api('GET', '/agents', { query: { limit: 5, cursor } });
			pages.push(body);
			cursor = body.cursor || undefined;
		} while (cursor);

		expect(pages.map((page) => page.num_items)).toEqual([5, 5, 5]);
		const agents = pages.flatMap((page) => page.agents);
		expect(new Set(ids(agents)).size).toBe(15);
		expectNewestFirst(agents);
		expect(new Set(ids(agents.slice(0, 12)))).toEqual(created);
	});
});

describe('filters', () => {
	let all: any[];

	beforeEach(async () => {
		await sandbox.seed({ agents: 3, calls: 90 });
		all = await listAll(sandbox, 'calls', { limit: 100 });
	});

	test('agent_id: only that agent’s calls, in list order, across pages', async () => {
		const agents = await listAll(sandbox, 'agents');
		let total = 0;
		for (const agent of agents) {
			const filtered = await listAll(sandbox, 'calls', { agent_id: agent.id, limit: 7 });
			expect(ids(filtered)).toEqual(ids(all.filter((call) => call.agent_id === agent.id)));
			total += filtered.length;
		}
		expect(total).toBe(90);
	});

	test('client_number: only calls with that number, in list order, across pages', async () => {
		const counts = new Map<string, number>();
		for (const call of all)
			counts.set(call.client_number, (counts.get(call.client_number) ?? 0) + 1);
		const [busiest, count] = [...counts].sort((a, b) => b[1] - a[1])[0];
		expect(count).toBeGreaterThan(1);

		const filtered = await listAll(sandbox, 'calls', { client_number: busiest, limit: 2 });
		expect(ids(filtered)).toEqual(ids(all.filter((call) => call.client_number === busiest)));
	});

	test('both filters together', async () => {
		const { agent_id: agentId, client_number: clientNumber } = all[0];
		const filtered = await listAll(sandbox, 'calls', {
			agent_id: agentId,
			client_number: clientNumber,
			limit: 1,
		});

		expect(filtered.length).toBeGreaterThan(0);
		expect(ids(filtered)).toEqual(
			ids(all.filter((call) => call.agent_id === agentId && call.client_number === clientNumber)),
		);
	});

	test('an unknown agent_id or client_number gives an empty last page', async () => {
		for (const query of [{ agent_id: 'agt_unknown' }, { client_number: '+19999999999' }]) {
			const { status, body } = await sandbox.api('GET', '/calls', { query });
			expect(status).toBe(200);
			expect(body.num_items).toBe(0);
			expect(body.calls).toEqual([]);
			expect(body.cursor ?? '').toBe('');
		}
	});
});

describe('20,000 calls', () => {
	test('seed quickly, and page through all of them with limit 100 without duplicate or gap', async () => {
		const seedStarted = performance.now();
		expect(await sandbox.seed({ agents: 5, calls: 20_000 })).toEqual({
			agents_created: 5,
			calls_created: 20_000,
			live_calls_created: 0,
		});
		const seedMs = performance.now() - seedStarted;
		expect(seedMs).toBeLessThan(5000);

		const [agent] = await listAll(sandbox, 'agents');
		const calls: { id: string; created_at: string }[] = [];
		let cursor: string | undefined;
		let deepCursor: string | undefined;
		let pages = 0;
		const pagingStarted = performance.now();
		do {
			const { status, body } = await sandbox.api('GET', '/calls', {
				query: { limit: 100, cursor },
			});
			expect(status).toBe(200);
			pages++;
			calls.push(...body.calls);
			cursor = body.cursor || undefined;
			if (pages === 190) deepCursor = cursor;
			// A new call now and then: it is newer than every page, so it must not show up later.
			if (pages % 50 === 0) await placeCall(sandbox, agent);
		} while (cursor);
		const pagingMs = performance.now() - pagingStarted;

		expect(pages).toBe(200);
		expect(calls).toHaveLength(20_000);
		expect(new Set(ids(calls)).size).toBe(20_000);
		const outOfOrder = calls.filter(
			(call, i) => i > 0 && compareNewestFirst(calls[i - 1], call) >= 0,
		);
		expect(outOfOrder).toEqual([]);
		// Generous bound (about 1.5 ms per page on a quiet machine); correctness above is the point.
		expect(pagingMs / pages).toBeLessThan(100);

		// A page deep in the list, with and without a filter, is served at once: the cursor position is
		// found by binary search.
		for (const query of [{}, { agent_id: agent.id }]) {
			const started = performance.now();
			const deep = await sandbox.api('GET', '/calls', {
				query: { ...query, limit: 100, cursor: deepCursor },
			});
			expect(deep.status).toBe(200);
			expect(deep.body.num_items).toBeGreaterThan(0);
			expect(performance.now() - started).toBeLessThan(1000);
		}
	});
});
