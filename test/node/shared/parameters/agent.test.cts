/**
 * Agents by name: the "By Name" mode of every agent picker of the Voice Agent node, resolved through the
 * agent list once per run, run in n8n's engine against the sandbox. (The trigger's picker: registration tests.)
 */
import {
	agentListReads,
	allCalls,
	createAgent,
	getAgent,
	placeCall,
	wire,
	wireLines,
} from '../../../support/api.cts';
import { rl } from '../../../support/n8n.cts';
import { jsonOf, runWith } from '../../../support/node.cts';
import { startInterceptingProxy } from '../../../support/proxy.cts';
import { useSandbox } from '../../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

describe('a name that names one agent', () => {
	test('Agent → Get: the agent of that name, found in the list, then fetched by its ID', async () => {
		const wanted = await createAgent(sandbox, { name: 'Renewal Reminder' });
		await createAgent(sandbox, { name: 'Renewal Reminder 2' });
		await createAgent(sandbox, { name: 'renewal reminder' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl('Renewal Reminder', 'name'),
		});

		expect(await wireLines(sandbox)).toEqual(['GET /agents 200', 'GET /agent 200']);
		expect((await wire(sandbox))[1].query).toEqual({ id: wanted.id });
		expect(jsonOf(run)).toEqual([await getAgent(sandbox, wanted.id)]);
	});

	test('Agent → Delete by name deletes that agent only', async () => {
		const doomed = await createAgent(sandbox, { name: 'Old Campaign' });
		const kept = await createAgent(sandbox, { name: 'New Campaign' });

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'delete',
			agent: rl('Old Campaign', 'name'),
		});

		expect(jsonOf(run)).toEqual([{ deleted: true, id: doomed.id }]);
		expect(await getAgent(sandbox, doomed.id)).toBeUndefined();
		expect(await getAgent(sandbox, kept.id)).toBeDefined();
	});

	test('Call → Create from an agent by name: its number comes from the list, no GET /agent', async () => {
		const agent = await createAgent(sandbox, { name: 'Front Desk', area_code: '212' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl('Front Desk', 'name'),
			to: '+14155550123',
			context: 'Booking for Friday',
		});

		const [call] = jsonOf(run);
		expect(call).toMatchObject({
			agent_id: agent.id,
			from: agent.phone_number,
			to: '+14155550123',
			status: 'in_progress',
		});
		expect(await wireLines(sandbox)).toEqual([
			'GET /agents 200',
			'GET /calls 200',
			'POST /call 200',
		]);
	});

	test("Call → Get Many's agent filter by name sends that agent's ID", async () => {
		const agent = await createAgent(sandbox, { name: 'Collections' });
		const other = await createAgent(sandbox, { name: 'Sales' });
		const mine = await placeCall(sandbox, agent, { to: '+14155550101' });
		await placeCall(sandbox, other, { to: '+14155550102' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			agent: rl('Collections', 'name'),
		});

		expect(jsonOf(run).map((call) => call.id)).toEqual([mine.id]);
		expect((await wire(sandbox)).map((request) => [request.path, request.query])).toEqual([
			['/agents', { limit: '100' }],
			['/calls', { agent_id: agent.id, limit: '100' }],
		]);
	});

	test('the name may come from an expression, with spaces around it', async () => {
		const agent = await createAgent(sandbox, { name: 'Front Desk' });

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'get', agent: rl('={{ $json.agent }}', 'name') },
			{ input: [{ agent: '  Front Desk ' }] },
		);

		expect(jsonOf(run).map((found) => found.id)).toEqual([agent.id]);
	});
});

describe('the agent list is read once per run', () => {
	test('however many items and names: one pass over the list, then one request per item', async () => {
		// 230 agents: the list is three pages.
		for (let n = 0; n < 230; n++) await createAgent(sandbox, { name: `Agent ${n}` });
		await sandbox.clearRequests();

		const names = ['Agent 3', 'Agent 229', 'Agent 3', 'Agent 100'];
		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'get', agent: rl('={{ $json.name }}', 'name') },
			{ input: names.map((name) => ({ name })) },
		);

		expect(jsonOf(run).map((agent) => agent.name)).toEqual(names);
		expect(await agentListReads(sandbox)).toBe(3);
		expect((await wireLines(sandbox)).slice(3)).toEqual(Array(4).fill('GET /agent 200'));
	});

	test('Call → Create: items of one agent by name share the one read of the list', async () => {
		const agent = await createAgent(sandbox, { name: 'Dialler' });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{
				resource: 'call',
				operation: 'create',
				from: rl('Dialler', 'name'),
				to: '={{ $json.to }}',
			},
			{ input: [{ to: '+14155550101' }, { to: '+14155550102' }, { to: '+14155550103' }] },
		);

		expect(jsonOf(run).map((call) => call.from)).toEqual(Array(3).fill(agent.phone_number));
		expect(await agentListReads(sandbox)).toBe(1);
		expect(await allCalls(sandbox)).toHaveLength(3);
	});
});

describe('a name that names no agent, or several', () => {
	test('no agent of that name: an error naming the name, and nothing is sent', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl('Back Office', 'name'),
			to: '+14155550123',
		});

		// What to do is in the message, which n8n's toasts show.
		expect(run.error?.message).toBe(
			'No agent is named "Back Office": pick the agent from the list or give its ID [item 0]',
		);
		expect(run.error?.description).toBe(
			'From (Agent) (By Name) is matched exactly, case and spaces included.',
		);
		expect(await wireLines(sandbox)).toEqual(['GET /agents 200']);
		expect(await allCalls(sandbox)).toEqual([]);
	});

	test('a name that differs only in case: the error suggests the agent meant', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl('front desk', 'name'),
		});

		expect(run.error?.message).toBe(
			'No agent is named "front desk": did you mean "Front Desk"? [item 0]',
		);
		expect(run.error?.description).toBe(
			'Agent (By Name) is matched exactly, case and spaces included.',
		);
	});

	test('several agents of that name: an error listing their IDs', async () => {
		// The sandbox's upsert keeps names unique; a service whose dashboard allows a second agent of the
		// same name is played by a proxy that shows the second agent under the first one's name.
		const first = await createAgent(sandbox, { name: 'Support' });
		const second = await createAgent(sandbox, { name: 'Support (copy)' });
		const proxy = await startInterceptingProxy(sandbox.origin, (route) =>
			route === 'GET /agents'
				? {
						rewrite: (page) => ({
							...page,
							agents: page.agents.map((agent: any) =>
								agent.id === second.id ? { ...agent, name: 'Support' } : agent,
							),
						}),
					}
				: undefined,
		);
		try {
			const run = await runWith(
				sandbox,
				{ resource: 'agent', operation: 'get', agent: rl('Support', 'name') },
				{ baseUrl: `${proxy.origin}/v1` },
			);

			// Newest first, as the list shows them.
			expect(run.error?.message).toBe(
				`2 agents are named "Support" (${second.id}, ${first.id}): give the ID of the one you mean, or pick it from the list [item 0]`,
			);
			expect(run.error?.description).toBe(
				'Agent (By Name) must name one agent; giving the agents unique names also avoids this.',
			);
			expect(proxy.routes).toEqual(['GET /agents']);
		} finally {
			await proxy.close();
		}
	});

	test('On Error → Continue: only the item with the unknown name fails, the others go on', async () => {
		const agent = await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'get', agent: rl('={{ $json.agent }}', 'name') },
			{
				input: [{ agent: 'Front Desk' }, { agent: 'Nobody' }, { agent: 'Front Desk' }],
				continueOnFail: true,
			},
		);

		const items = jsonOf(run);
		expect(items.map((item) => item.id ?? item.error)).toEqual([
			agent.id,
			'No agent is named "Nobody": pick the agent from the list or give its ID [item 1]',
			agent.id,
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(await agentListReads(sandbox)).toBe(1);
	});

	test('an empty name is an input error, before anything is sent', async () => {
		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl('  ', 'name'),
		});

		expect(run.error?.message).toBe('Agent must not be empty [item 0]');
		expect(await wire(sandbox)).toEqual([]);
	});
});
