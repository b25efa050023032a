/** Call → Create of the Voice Agent node, run in n8n's engine against the sandbox. */
import { allCalls, createAgent, getCall, wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

// Calls last a minute unless a test completes them, so none ends while a test looks at it.
const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('Call: Create', () => {
	test('from an agent by ID: its phone number is looked up once per agent for all items of a run', async () => {
		const first = await createAgent(sandbox, { name: 'First' });
		const second = await createAgent(sandbox, { name: 'Second', area_code: '212' });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{
				resource: 'call',
				operation: 'create',
				from: rl('={{ $json.agent }}'),
				to: '={{ $json.to }}',
				context: '={{ $json.context }}',
			},
			{
				input: [
					{ agent: first.id, to: '+14155550101', context: 'Order 1' },
					{ agent: second.id, to: '+14155550102', context: 'Order 2' },
					{ agent: first.id, to: '+14155550103', context: 'Order 3' },
				],
			},
		);

		const calls = jsonOf(run);
		expect(run.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		const requests = await wire(sandbox);
		const agentLookups = requests.filter(
			(request) => request.method === 'GET' && request.path === '/agent',
		);
		expect(agentLookups.map((request) => request.query)).toEqual([
			{ id: first.id },
			{ id: second.id },
		]);
		const posts = requests.filter(
			(request) => request.method === 'POST' && request.path === '/call',
		);
		expect(posts.map((request) => request.body)).toEqual([
			{ from: first.phone_number, to: '+14155550101', context: 'Order 1' },
			{ from: second.phone_number, to: '+14155550102', context: 'Order 2' },
			{ from: first.phone_number, to: '+14155550103', context: 'Order 3' },
		]);
		expect(
			calls.map((call) => [call.agent_id, call.from, call.to, call.context, call.status]),
		).toEqual([
			[first.id, first.phone_number, '+14155550101', 'Order 1', 'in_progress'],
			[second.id, second.phone_number, '+14155550102', 'Order 2', 'in_progress'],
			[first.id, first.phone_number, '+14155550103', 'Order 3', 'in_progress'],
		]);
		for (const call of calls) {
			expect(await getCall(sandbox, call.id)).toEqual(call);
		}
		expect(await allCalls(sandbox)).toHaveLength(3);
	});

	test('from an agent picked from the list', async () => {
		const agent = await createAgent(sandbox, { name: 'Listed' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl(agent.id, 'list'),
			to: '+447700900123',
		});

		const [call] = jsonOf(run);
		expect(call).toMatchObject({
			agent_id: agent.id,
			from: agent.phone_number,
			to: '+447700900123',
			context: '',
		});
		const requests = await wire(sandbox);
		expect(
			requests.filter((request) => request.path === '/agent').map((request) => request.query),
		).toEqual([{ id: agent.id }]);
		expect(
			requests.filter((request) => request.method === 'POST').map((request) => request.body),
		).toEqual([{ from: agent.phone_number, to: '+447700900123' }]);
	});

	test('from a raw phone number: no agent lookup; context and User Speaks First are sent', async () => {
		const agent = await createAgent(sandbox, { name: 'By Number' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl(agent.phone_number, 'phoneNumber'),
			to: '+4915112345678',
			context: 'Your parcel arrives tomorrow',
			options: { userSpeaksFirst: true },
		});

		const [call] = jsonOf(run);
		const requests = await wire(sandbox);
		expect(requests.some((request) => request.path === '/agent')).toBe(false);
		const posts = requests.filter(
			(request) => request.method === 'POST' && request.path === '/call',
		);
		expect(posts).toHaveLength(1);
		expect(posts[0].body).toStrictEqual({
			from: agent.phone_number,
			to: '+4915112345678',
			context: 'Your parcel arrives tomorrow',
			user_speaks_first: true,
		});
		expect(call).toEqual({
			id: expect.any(String),
			agent_id: agent.id,
			from: agent.phone_number,
			to: '+4915112345678',
			context: 'Your parcel arrives tomorrow',
			status: 'in_progress',
			created_at: expect.any(String),
			ended_at: null,
			duration: null,
			transcript: [],
		});
	});

	test("User Speaks First off is sent as false; the call's transcript starts with the agent", async () => {
		const agent = await createAgent(sandbox, {
			name: 'Speaker',
			initial_message: 'Hello from the clinic.',
		});
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl(agent.id),
			to: '+14155550123',
			options: { userSpeaksFirst: false },
		});

		const [call] = jsonOf(run);
		const [post] = (await wire(sandbox)).filter((request) => request.method === 'POST');
		expect(post.body).toStrictEqual({
			from: agent.phone_number,
			to: '+14155550123',
			user_speaks_first: false,
		});
		await sandbox.control('POST', `/calls/${call.id}/complete`);
		const ended = await getCall(sandbox, call.id);
		expect(ended.transcript[0]).toEqual({ speaker: 'agent', text: 'Hello from the clinic.' });
	});

	test('an unknown agent ID is reported and no call is placed', async () => {
		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl('agt_missing'),
			to: '+14155550123',
		});

		expect(run.error?.message).toBe('Agent "agt_missing" was not found');
		expect((await wire(sandbox)).map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /agent',
		]);
	});
});
