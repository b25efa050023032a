/** Agent → Get Many of the Voice Agent node, run in n8n's engine against the sandbox. */
import { wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

describe('Agent: Get Many', () => {
	test('Return All follows the cursor and outputs every agent, newest first', async () => {
		await sandbox.seed({ agents: 130 });
		const expected: any[] = [];
		let cursor: string | undefined;
		do {
			const { body } = await sandbox.api('GET', '/agents', { query: { limit: 100, cursor } });
			expected.push(...body.agents);
			cursor = body.cursor || undefined;
		} while (cursor);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: true,
		});

		const agents = jsonOf(run);
		expect(agents).toHaveLength(130);
		expect(agents).toEqual(expected);
		const requests = await wire(sandbox);
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /agents',
			'GET /agents',
		]);
		expect(requests[0].query).toEqual({ limit: '100' });
		expect(requests[1].query).toEqual({ limit: '100', cursor: expect.any(String) });
		// Listings carry a model that upsert no longer accepts; it is passed through untouched.
		expect(new Set(agents.map((agent) => agent.llm_model))).toEqual(
			new Set(['gpt-4o', 'service-voice', 'gpt-3.5-turbo']),
		);
	});

	test('Limit asks for just that many and outputs them, one item per agent', async () => {
		await sandbox.seed({ agents: 12 });
		const { body } = await sandbox.api('GET', '/agents', { query: { limit: 7 } });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: false,
			limit: 7,
		});

		expect(jsonOf(run)).toEqual(body.agents);
		expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/agents', query: { limit: '7' }, body: null, status: 200 },
		]);
	});

	test('an account without agents outputs nothing', async () => {
		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: true,
		});

		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(await wire(sandbox)).toHaveLength(1);
	});
});
