/** Agent → Delete of the Voice Agent node, run in n8n's engine against the sandbox. */
import { createAgent, wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

describe('Agent: Delete', () => {
	test('DELETE /agent?id=... outputs {deleted: true, id} and the agent is gone', async () => {
		const existing = await createAgent(sandbox, { name: 'Doomed' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'delete',
			agent: rl(existing.id),
		});

		expect(jsonOf(run)).toStrictEqual([{ deleted: true, id: existing.id }]);
		expect(await wire(sandbox)).toEqual([
			{ method: 'DELETE', path: '/agent', query: { id: existing.id }, body: null, status: 200 },
		]);
		expect((await sandbox.api('GET', '/agent', { query: { id: existing.id } })).status).toBe(404);
	});
});
