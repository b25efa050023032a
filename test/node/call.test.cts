/** The Call operations of the Voice Agent node, run in n8n's engine against the sandbox. */
import { allCalls, createAgent, getCall, placeCall, wire } from '../support/api.cts';
import { API_KEY, transcriptText } from '../support/fixtures.cts';
import { rl } from '../support/n8n.cts';
import { jsonOf, runWith } from '../support/node.cts';
import { useCountingProxy } from '../support/proxy.cts';
import { useSandbox } from '../support/sandbox.cts';

// Calls last a minute unless a test completes them, so none ends while a test looks at it.
const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });
const proxy = useCountingProxy(sandbox);

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

describe('Call: Get', () => {
	test('GET /call?id=...; after the call completes the output has its transcript', async () => {
		const agent = await createAgent(sandbox, { name: 'Clinic' });
		const call = await placeCall(sandbox, agent, { context: 'Cleaning on Tuesday at 10:00' });
		await sandbox.clearRequests();

		const live = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id }),
		);
		expect(live).toEqual([call]);
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/call', query: { id: call.id }, body: null, status: 200 },
		]);

		expect((await sandbox.control('POST', `/calls/${call.id}/complete`)).status).toBe(200);
		const [ended] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id }),
		);

		expect(ended).toMatchObject({
			id: call.id,
			status: 'completed',
			ended_at: expect.any(String),
			duration: expect.any(Number),
		});
		expect(ended.transcript.length).toBeGreaterThan(2);
		for (const entry of ended.transcript) expect(['agent', 'customer']).toContain(entry.speaker);
		expect(transcriptText(ended)).toContain('Cleaning on Tuesday at 10:00');
	});
});

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

	test("the agent filter sends agent_id and outputs only that agent's calls", async () => {
		await sandbox.seed({ agents: 3, calls: 60 });
		const [agent] = (await sandbox.api('GET', '/agents')).body.agents;
		const expected = await allCalls(sandbox, { agent_id: agent.id });
		expect(expected.length).toBeGreaterThan(0);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			agent: rl(agent.id),
		});

		const calls = jsonOf(run);
		expect(calls).toEqual(expected);
		expect(calls.every((call) => call.agent_id === agent.id)).toBe(true);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ agent_id: agent.id, limit: '100' },
		]);
	});

	test('the client number filter sends client_number and outputs only calls with that number', async () => {
		await sandbox.seed({ agents: 2, calls: 60 });
		const client = (await allCalls(sandbox))[0].client_number;
		const expected = await allCalls(sandbox, { client_number: client });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			filters: { clientNumber: client },
		});

		const calls = jsonOf(run);
		expect(calls).toEqual(expected);
		expect(calls.every((call) => call.client_number === client)).toBe(true);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ client_number: client, limit: '100' },
		]);
	});

	test('agent and client number filters together, with an empty agent picker meaning all agents', async () => {
		await sandbox.seed({ agents: 2, calls: 40 });
		const [call] = await allCalls(sandbox);
		const expected = await allCalls(sandbox, {
			agent_id: call.agent_id,
			client_number: call.client_number,
		});
		await sandbox.clearRequests();

		const both = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			agent: rl(call.agent_id),
			filters: { clientNumber: call.client_number },
		});
		const none = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: false,
			limit: 5,
			agent: rl('', 'list'),
		});

		expect(jsonOf(both)).toEqual(expected);
		expect(jsonOf(none)).toHaveLength(5);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ agent_id: call.agent_id, client_number: call.client_number, limit: '100' },
			{ limit: '5' },
		]);
	});

	describe('Include Transcripts', () => {
		test('outputs the full record of every call in list order, keeping client_number', async () => {
			await sandbox.seed({ agents: 2, calls: 25 });
			const summaries = await allCalls(sandbox);
			await sandbox.clearRequests();

			const run = await runWith(sandbox, {
				resource: 'call',
				operation: 'getMany',
				returnAll: true,
				options: { includeTranscripts: true, transcriptConcurrency: 3 },
			});

			const calls = jsonOf(run);
			expect(calls.map((call) => call.id)).toEqual(summaries.map((call) => call.id));
			// One read of the credential for the run, not one per request.
			expect(run.credentialReads).toBe(1);
			const requests = await wire(sandbox);
			expect(requests.filter((request) => request.path === '/calls')).toHaveLength(1);
			const fetched = requests
				.filter((request) => request.path === '/call')
				.map((request) => request.query.id);
			expect(new Set(fetched)).toEqual(new Set(summaries.map((call) => call.id)));
			expect(fetched).toHaveLength(25);
			for (const [index, call] of calls.entries()) {
				const full = await getCall(sandbox, call.id);
				expect(call).toEqual({ ...summaries[index], ...full });
				expect(call.client_number).toBe(full.to);
				// Failed calls have no conversation; completed ones have their transcript.
				if (call.status === 'completed') expect(call.transcript.length).toBeGreaterThan(2);
				else expect(call).toMatchObject({ status: 'failed', transcript: [] });
			}
			expect(calls.filter((call) => call.status === 'completed').length).toBeGreaterThan(10);
		});

		test("under the service's rate limit every call is fetched, and after a 429 no request starts before its Retry-After", async () => {
			await sandbox.seed({ agents: 1, calls: 40 });
			// 10 requests per second: the first 10 pass at once, the other 30 need about 3 more seconds.
			await sandbox.faults({ rate_limit_per_s: 10, match: 'GET /call' });
			const summaries = await allCalls(sandbox);
			await sandbox.clearRequests();

			const run = await runWith(sandbox, {
				resource: 'call',
				operation: 'getMany',
				returnAll: true,
				options: { includeTranscripts: true },
			});

			const calls = jsonOf(run);
			expect(calls.map((call) => call.id)).toEqual(summaries.map((call) => call.id));
			expect(calls.every((call) => Array.isArray(call.transcript))).toBe(true);
			const fetches = (await sandbox.requests()).filter((request) => request.path === '/v1/call');
			const arrivals = fetches.map((request) => Date.parse(request.at));
			const refusals = fetches.filter((request) => request.status === 429);
			expect(refusals.length).toBeGreaterThan(0);
			expect(fetches.filter((request) => request.status === 200)).toHaveLength(40);
			// Requests already under way when a 429 comes back still arrive; nothing new starts until the
			// Retry-After (1 s) has passed.
			for (const refusal of refusals) {
				const refusedAt = Date.parse(refusal.at);
				const during = arrivals.filter((at) => at > refusedAt + 200 && at < refusedAt + 950);
				expect(during).toEqual([]);
			}
		}, 30_000);

		test.each([
			{ label: '1', bound: 1, limit: 4, option: 1, latencyMs: 250 },
			{ label: '4', bound: 4, limit: 10, option: 4, latencyMs: 250 },
			{ label: '100 (the maximum)', bound: 100, limit: 250, option: 100, latencyMs: 1000 },
			{ label: 'not set (default 50)', bound: 50, limit: 130, option: undefined, latencyMs: 500 },
		])(
			'Max Transcript Requests in Parallel $label: never more GET /call requests in flight than that, and it gets there',
			async ({ bound, limit, option, latencyMs }) => {
				await sandbox.seed({ agents: 1, calls: limit });
				// Each GET /call takes far longer than starting the next ones, even a hundred of them on a busy machine, so
				// latency does not rise and the bound is reached; the limit starts at 4 and doubles per round
				// (4 + 8 + 16 + 32 + 64 calls reach 100).
				await sandbox.faults({ latency_ms: latencyMs, match: 'GET /call' });

				const run = await runWith(
					sandbox,
					{
						resource: 'call',
						operation: 'getMany',
						returnAll: false,
						limit,
						options:
							option === undefined
								? { includeTranscripts: true }
								: { includeTranscripts: true, transcriptConcurrency: option },
					},
					{ baseUrl: `${proxy.origin}/v1` },
				);

				const calls = jsonOf(run);
				expect(calls).toHaveLength(limit);
				expect(calls.map((call) => call.id)).toEqual(
					(await allCalls(sandbox)).slice(0, limit).map((call) => call.id),
				);
				expect(calls.every((call) => Array.isArray(call.transcript))).toBe(true);
				expect(proxy.maxInFlight('GET /call')).toBe(bound);
				expect(proxy.maxInFlight('GET /calls')).toBe(1);
			},
		);
	});
});

describe('Call: Set Context', () => {
	test('POST /call/context outputs the updated call; once completed its transcript mentions the new context', async () => {
		const agent = await createAgent(sandbox, { name: 'Updater' });
		const call = await placeCall(sandbox, agent, { context: 'Delivery on Monday' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: call.id,
			context: 'Delivery moved to Wednesday',
		});

		const [updated] = jsonOf(run);
		expect(await wire(sandbox)).toEqual([
			{
				method: 'POST',
				path: '/call/context',
				query: {},
				body: { id: call.id, context: 'Delivery moved to Wednesday' },
				status: 200,
			},
		]);
		expect(updated).toEqual({
			id: call.id,
			agent_id: agent.id,
			from: agent.phone_number,
			to: call.to,
			context: 'Delivery moved to Wednesday',
			status: 'in_progress',
			created_at: call.created_at,
			updated_at: expect.any(String),
		});

		await sandbox.control('POST', `/calls/${call.id}/complete`);
		const [ended] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id }),
		);
		expect(ended.status).toBe('completed');
		expect(transcriptText(ended)).toContain('Delivery moved to Wednesday');
	});

	test("on a call that has ended, the service's 400 message is shown", async () => {
		const agent = await createAgent(sandbox, { name: 'Late' });
		const call = await placeCall(sandbox, agent);
		await sandbox.control('POST', `/calls/${call.id}/complete`);

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: call.id,
			context: 'Too late',
		});

		expect(run.error?.message).toBe(
			`The Voice Agent API rejected the request: Call ${call.id} is completed: the context can only be set while the call is in_progress`,
		);
	});
});
