/**
 * How the Voice Agent node reports the service's errors and retries what is safe to retry, network failures
 * included, run in n8n's engine.
 */
import { allCalls, createAgent, placeCall, wire, wireLines } from '../../support/api.cts';
import { expectNoKey } from '../../support/errors.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { startOneShotProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { closedPortUrl, startAnsweringServer } from '../../support/servers.cts';

const WRONG_KEY = 'va_wrong_key_Hd83kQz1Lp0';

const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('errors the service answers', () => {
	test('401: the message says the API key was rejected and to check the credential, once', async () => {
		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'get', callId: 'call_1' },
			{ apiKey: WRONG_KEY },
		);

		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			'The Voice Agent API rejected the API key (401 Unauthorized): check the API key of the Voice Agent API credential',
		);
		// n8n's toasts show the message only, so the remedy is there; the description does not repeat it.
		expect(run.error?.description ?? null).toBeNull();
		expect(run.error?.httpCode).toBe('401');
		// Not retried: a wrong key stays wrong.
		expect(await wireLines(sandbox)).toEqual(['GET /call 401']);
		expectNoKey(run, WRONG_KEY);
	});

	test.each([
		[
			'Agent: Get',
			{ resource: 'agent', operation: 'get', agent: rl('agt_nope') },
			'Agent "agt_nope" was not found',
			'GET /agent',
		],
		[
			'Agent: Delete',
			{ resource: 'agent', operation: 'delete', agent: rl('agt_gone') },
			'Agent "agt_gone" was not found',
			'DELETE /agent',
		],
		[
			'Call: Get',
			{ resource: 'call', operation: 'get', callId: 'call_nope' },
			'Call "call_nope" was not found',
			'GET /call',
		],
		[
			'Call: Set Context',
			{ resource: 'call', operation: 'setContext', callId: 'call_lost', context: 'New' },
			'Call "call_lost" was not found',
			// The call is read before its context is set: the 404 comes from that read.
			'GET /call',
		],
	])('404 on %s names what was not found', async (_operation, parameters, message, route) => {
		const run = await runWith(sandbox, parameters);

		expect(run.error?.message).toBe(message);
		// Said once: the description does not repeat the service's own "not found" text.
		expect(run.error?.description ?? null).toBeNull();
		expect(run.error?.httpCode).toBe('404');
		expect(await wireLines(sandbox)).toEqual([`${route} 404`]);
		expectNoKey(run);
	});

	test("400: the service's message is shown once, naming the field by its label in the node", async () => {
		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl('+14155550999', 'phoneNumber'),
			to: '+14155550123',
		});

		expect(run.error?.message).toBe(
			'The Voice Agent API rejected the request: From (Agent) must be the phone_number of one of your agents; +14155550999 is not',
		);
		expect(run.error?.description ?? null).toBeNull();
		expect(run.error?.httpCode).toBe('400');
		expect((await wireLines(sandbox)).filter((line) => line.startsWith('POST'))).toEqual([
			'POST /call 400',
		]);
	});

	test('429: the node waits for Retry-After and then succeeds', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.faults({ rate_limit_per_s: 1, match: 'GET /call' });
		// This request takes the one token of the bucket, so the node's first request is rate limited.
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).status).toBe(200);
		await sandbox.clearRequests();

		const started = Date.now();
		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id });
		const elapsed = Date.now() - started;

		expect(jsonOf(run)).toEqual([call]);
		expect(await wireLines(sandbox)).toEqual(['GET /call 429', 'GET /call 200']);
		// Retry-After: 1 was honoured.
		expect(elapsed).toBeGreaterThanOrEqual(1_000);
	});

	test('429 asking for more than a minute: fails at once, saying when to retry, instead of hanging', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		// One token every 200 s: after the first request the service asks to wait 200 s.
		await sandbox.faults({ rate_limit_per_s: 0.005, match: 'GET /call' });
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).status).toBe(200);
		await sandbox.clearRequests();

		const started = Date.now();
		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id });

		expect(Date.now() - started).toBeLessThan(5_000);
		expect(run.error?.message).toBe(
			'The Voice Agent API is rate limiting this API key; retry after 200 seconds',
		);
		expect(run.error?.httpCode).toBe('429');
		expect(await wireLines(sandbox)).toEqual(['GET /call 429']);
	});

	test('5xx on an idempotent request (GET /call): retried, succeeds on the third request', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.clearRequests();
		await sandbox.faults({ error_rate: 1, times: 2, match: 'GET /call' });

		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id });

		expect(jsonOf(run)).toEqual([call]);
		expect(await wireLines(sandbox)).toEqual(['GET /call 500', 'GET /call 500', 'GET /call 200']);
	});

	test.each([
		[
			'Agent: Create or Update',
			'POST /agent',
			{ resource: 'agent', operation: 'upsert', name: 'Retry Me', areaCode: '415' },
		],
		[
			'Agent: Get Many',
			'GET /agents',
			{ resource: 'agent', operation: 'getMany', returnAll: true },
		],
		['Call: Get Many', 'GET /calls', { resource: 'call', operation: 'getMany', returnAll: true }],
	])('5xx on %s (idempotent): retried and succeeds', async (_operation, route, parameters) => {
		await sandbox.faults({ error_rate: 1, times: 1, status: 503, match: route });

		const run = await runWith(sandbox, parameters);

		expect(run.error).toBeUndefined();
		// An update reads the agent list first (once per run), to send back the fields it does not set.
		const reads = route === 'POST /agent' ? ['GET /agents 200'] : [];
		expect(await wireLines(sandbox)).toEqual([...reads, `${route} 503`, `${route} 200`]);
	});

	test('Set Context after a 5xx: retried (replacing the context twice is harmless) and outputs the updated call', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.clearRequests();
		await sandbox.faults({ error_rate: 1, times: 1, match: 'POST /call/context', when: 'after' });

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: call.id,
			context: 'Again',
		});

		expect(jsonOf(run)).toEqual([
			expect.objectContaining({ id: call.id, context: 'Again', status: 'in_progress' }),
		]);
		expect(await wireLines(sandbox)).toEqual([
			'GET /call 200',
			'POST /call/context 500',
			'POST /call/context 200',
		]);
	});

	test('5xx that persists: 1 request and 5 retries, then an error naming the request and what the service said', async () => {
		await sandbox.faults({ error_rate: 1, match: 'GET /call' });

		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: 'call_1' });

		expect(run.error?.message).toBe(
			'The Voice Agent service failed to process GET /call (500): Injected fault (sandbox): GET /call answered 500',
		);
		expect(run.error?.description).toBe('GET /call was tried 6 times.');
		expect(await wireLines(sandbox)).toEqual(Array(6).fill('GET /call 500'));
		expectNoKey(run);
	});
});

describe("the credential's Base URL", () => {
	test('a trailing slash is tolerated', async () => {
		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'getMany', returnAll: true },
			{ baseUrl: `${sandbox.baseUrl}//` },
		);

		expect(run.error).toBeUndefined();
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/agents', query: { limit: '100' }, body: null, status: 200 },
		]);
	});

	test('a Base URL that is no http(s) URL fails before any request', async () => {
		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'get', callId: 'call_1' },
			{ baseUrl: 'api.example.com/v1' },
		);

		expect(run.error?.message).toBe(
			'The Voice Agent API credential has no valid Base URL: set the Base URL to the API address including /v1, e.g. https://api.example.com/v1',
		);
		expect(await wire(sandbox)).toEqual([]);
	});

	test.each([
		[
			'answers 404 pages',
			404,
			"GET /agents was not found: the credential's Base URL does not answer like the Voice Agent API; set the Base URL to the API address including /v1, e.g. https://api.example.com/v1",
		],
		[
			'answers 200 with a web page',
			200,
			'GET /agents answered without the "agents" list: the credential\'s Base URL does not answer like the Voice Agent API; set the Base URL to the API address including /v1, e.g. https://api.example.com/v1',
		],
	])(
		'a Base URL of another server that %s: the error says the Base URL is not the API',
		async (_what, status, message) => {
			const website = await startAnsweringServer(
				status,
				'text/html',
				'<!DOCTYPE html><p>Hello</p>',
			);
			try {
				const run = await runWith(
					sandbox,
					{ resource: 'agent', operation: 'getMany', returnAll: true },
					{ baseUrl: website.origin },
				);

				expect(run.error?.message).toBe(message);
			} finally {
				await website.close();
			}
		},
	);
});

test('Continue On Fail keeps the error item free of the API key', async () => {
	const run = await runWith(
		sandbox,
		{ resource: 'call', operation: 'get', callId: 'call_unknown' },
		{ continueOnFail: true, apiKey: API_KEY },
	);

	expect(run.error).toBeUndefined();
	expect(run.items).toEqual([
		{ json: { error: 'Call "call_unknown" was not found' }, pairedItem: { item: 0 } },
	]);
	expect(JSON.stringify(run.run.data)).not.toContain(API_KEY);
	expect((await wire(sandbox)).map((request) => request.status)).toEqual([404]);
});

describe('network failures', () => {
	test('connection refused (Base URL on a closed port) for Create: retried, then a clear error', async () => {
		const baseUrl = await closedPortUrl('/v1');

		const started = Date.now();
		const run = await runWith(
			sandbox,
			{
				resource: 'call',
				operation: 'create',
				from: rl('+14155550100', 'phoneNumber'),
				to: '+14155550123',
			},
			{ baseUrl },
		);
		const elapsed = Date.now() - started;

		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			'Could not reach the Voice Agent API: the service refused the connection (is the Base URL right and the service up?)',
		);
		// Three retries with backoff: at least 150 + 300 + 600 ms.
		expect(elapsed).toBeGreaterThanOrEqual(1_050);
		expectNoKey(run);
	});

	test('connection refused when placing the call itself: retried (nothing was sent), then a clear error', async () => {
		const agent = await createAgent(sandbox, { name: 'Unreachable' });
		// Serves the lookup before dialling, then stops listening: POST /call meets a closed port.
		const gate = await startOneShotProxy(sandbox.origin, 'GET /calls');
		await sandbox.clearRequests();
		try {
			const started = Date.now();
			const run = await runWith(
				sandbox,
				{
					resource: 'call',
					operation: 'create',
					from: rl(agent.phone_number, 'phoneNumber'),
					to: '+14155550123',
				},
				{ baseUrl: `${gate.origin}/v1` },
			);
			const elapsed = Date.now() - started;

			expect(run.error?.message).toBe(
				'Could not reach the Voice Agent API: the service refused the connection (is the Base URL right and the service up?)',
			);
			expect(elapsed).toBeGreaterThanOrEqual(1_050);
			expect(await wireLines(sandbox)).toEqual(['GET /calls 200']);
			expect(await allCalls(sandbox)).toEqual([]);
			expectNoKey(run);
		} finally {
			await gate.close();
		}
	});

	test('a connection dropped on an idempotent request is retried', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.clearRequests();
		await sandbox.faults({ reset_rate: 1, times: 1, match: 'GET /call' });

		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id });

		expect(jsonOf(run)).toEqual([call]);
		expect(await wireLines(sandbox)).toEqual(['GET /call null', 'GET /call 200']);
	});

	test('a connection that keeps dropping: a clear error without the API key', async () => {
		await sandbox.faults({ reset_rate: 1, match: 'GET /call' });

		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: 'call_1' });

		expect(run.error?.message).toBe(
			'Could not reach the Voice Agent API: the connection was reset before the service answered',
		);
		expect(run.error?.description).toBe('GET /call was tried 6 times.');
		expect(await wireLines(sandbox)).toEqual(Array(6).fill('GET /call null'));
		expectNoKey(run);
	});
});
