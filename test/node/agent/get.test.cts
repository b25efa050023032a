/** Agent → Get of the Voice Agent node, run in n8n's engine against the sandbox. */
import { createAgent, wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

describe('Agent: Get', () => {
	test('GET /agent?id=... and outputs the agent', async () => {
		const existing = await createAgent(sandbox, { name: 'Lookup', voice_id: 'echo' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl(existing.id),
		});

		expect(jsonOf(run)).toEqual([existing]);
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/agent', query: { id: existing.id }, body: null, status: 200 },
		]);
	});

	test('an agent picked from the list is fetched by its ID too', async () => {
		const existing = await createAgent(sandbox, { name: 'Picked' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl(existing.id, 'list'),
		});

		expect(jsonOf(run)).toEqual([existing]);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([{ id: existing.id }]);
	});
});
