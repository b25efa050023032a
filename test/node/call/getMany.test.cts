/** Call → Get Many of the Voice Agent node, run in n8n's engine against both services the sandbox plays. */
import { createAgent, wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import {
	asOutput,
	callInProgress,
	everyCall,
	PROFILES,
	seedCalls,
	textId,
} from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';

describe.each(PROFILES)('Call: Get Many, the %s service', (profile) => {
	// Calls last a minute unless a test completes them, so none ends while a test looks at it.
	const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000, profile });

	test('Return All outputs every call, newest first, one item per call', async () => {
		await seedCalls(sandbox, profile, { agents: 2, calls: 150 });
		const expected = (await everyCall(sandbox, profile)).map((call) => asOutput(call, profile));
		await sandbox.clearRequests();

		const run = await runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });

		expect(jsonOf(run)).toEqual(expected);
		expect(run.items).toHaveLength(150);
		const requests = await wire(sandbox);
		expect(requests.map((request) => request.query)).toEqual([
			{ limit: '100' },
			{ limit: expect.any(String), cursor: expect.any(String) },
		]);
	});

	test('Limit outputs the newest calls up to it', async () => {
		await seedCalls(sandbox, profile, { agents: 2, calls: 30 });
		const expected = (await everyCall(sandbox, profile))
			.slice(0, 12)
			.map((call) => asOutput(call, profile));
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

	test("an agent's calls by the customer's number: the service filters; the agent's id goes as the service gave it", async () => {
		const sales = await createAgent(sandbox, { name: 'Sales' });
		const support = await createAgent(sandbox, { name: 'Support', area_code: '212' });
		const wanted = await callInProgress(sandbox, profile, sales, { to: '+14155550111' });
		await callInProgress(sandbox, profile, sales, { to: '+14155550122' });
		await callInProgress(sandbox, profile, support, { to: '+14155550111' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			agent: rl('Sales', 'name'),
			filters: { clientNumber: '+14155550111' },
		});

		const listed = await everyCall(sandbox, profile, {
			agent_id: textId(sales.id),
			client_number: '+14155550111',
		});
		expect(jsonOf(run)).toEqual(listed.map((call) => asOutput(call, profile)));
		expect(jsonOf(run)[0]).toMatchObject({
			id: textId(wanted.id),
			client_number: '+14155550111',
			status: 'in_progress',
		});
		const [list] = (await wire(sandbox)).filter((request) => request.path === '/calls');
		expect(list.query).toEqual({
			agent_id: textId(sales.id),
			client_number: '+14155550111',
			limit: '100',
		});
	});
});
