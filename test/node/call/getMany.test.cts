/** Call → Get Many of the Voice Agent node, run in n8n's engine against the sandbox. */
import { allCalls, wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

// Calls last a minute unless a test completes them, so none ends while a test looks at it.
const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('Call: Get Many', () => {
	test('Return All outputs every call, newest first, one item per call', async () => {
		await sandbox.seed({ agents: 2, calls: 150 });
		const expected = await allCalls(sandbox);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });

		expect(jsonOf(run)).toEqual(expected);
		expect(run.items).toHaveLength(150);
		const requests = await wire(sandbox);
		expect(requests.map((request) => request.query)).toEqual([
			{ limit: '100' },
			{ limit: '100', cursor: expect.any(String) },
		]);
	});

	test('Limit outputs the newest calls up to it', async () => {
		await sandbox.seed({ agents: 2, calls: 30 });
		const expected = (await allCalls(sandbox)).slice(0, 12);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: false,
			limit: 12,
		});

		expect(jsonOf(run)).toEqual(expected);
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/calls', query: { limit: '12' }, body: null, status: 200 },
		]);
	});
});
