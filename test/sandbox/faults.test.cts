import { createAgent, listAll } from '../support/api.cts';
import { startTestSandbox, useSandbox } from '../support/sandbox.cts';
import { sleep } from '../support/wait.cts';

const sandbox = useSandbox({ apiKeys: ['key-one', 'key-two'], callDurationMs: 60_000 });

/** The message of the error a request fails with when it gets no HTTP answer (socket reset). */
async function networkError(request: Promise<unknown>): Promise<string> {
	return request.then(
		(result) => {
			throw new Error(`expected a network error, got an answer: ${JSON.stringify(result)}`);
		},
		(error: unknown) => String(error),
	);
}

describe('injected errors', () => {
	test('status, match and times: only the next N matching requests fail, then the fault is spent', async () => {
		const settings = await sandbox.faults({
			error_rate: 1,
			status: 503,
			match: 'GET /agents',
			times: 2,
		});
		expect(settings).toEqual({
			error_rate: 1,
			status: 503,
			match: 'GET /agents',
			times: 2,
			times_remaining: 2,
		});

		const first = await sandbox.api('GET', '/agents');
		expect(first.status).toBe(503);
		expect(first.body).toEqual({
			error: 'Service Unavailable',
			message: expect.stringContaining('GET /agents'),
		});
		expect((await sandbox.api('GET', '/calls')).status).toBe(200);
		expect((await sandbox.api('GET', '/agents')).status).toBe(503);
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);
		expect((await sandbox.control('GET', '/faults')).body.times_remaining).toBe(0);
	});

	test('default status 500, and "before" fails without acting', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /agent' });
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Never', area_code: '415' },
		});

		expect(status).toBe(500);
		expect(body.error).toBe('Internal Server Error');
		await sandbox.faults({});
		expect(await listAll(sandbox, 'agents')).toEqual([]);
	});

	test('"after" acts, then answers the error (an ambiguous failure)', async () => {
		const agent = await createAgent(sandbox, { name: 'Caller' });
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'after', times: 1 });

		const { status } = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123', context: 'ambiguous' },
		});

		expect(status).toBe(500);
		const calls = await listAll(sandbox, 'calls');
		expect(calls.map((call) => call.context)).toEqual(['ambiguous']);
		const [logged] = (await sandbox.requests()).filter((request) => request.path === '/v1/call');
		expect(logged).toMatchObject({ method: 'POST', status: 500, fault: 'error' });
	});

	test('error_rate below 1 fails some requests and not others', async () => {
		await sandbox.faults({ error_rate: 0.5, match: 'GET /calls' });
		const statuses = new Set<number>();
		for (let i = 0; i < 60; i++) statuses.add((await sandbox.api('GET', '/calls')).status);

		expect(statuses).toEqual(new Set([200, 500]));
	});

	test('an injected 429 carries Retry-After', async () => {
		await sandbox.faults({ error_rate: 1, status: 429, times: 1 });
		const { status, headers, body } = await sandbox.api('GET', '/agents');

		expect(status).toBe(429);
		expect(headers.get('retry-after')).toBe('1');
		expect(body.error).toBe('Too Many Requests');
	});

	test('retry_after_s sets its Retry-After', async () => {
		await sandbox.faults({ error_rate: 1, status: 429, times: 1, retry_after_s: 30 });
		const { status, headers } = await sandbox.api('GET', '/agents');

		expect(status).toBe(429);
		expect(headers.get('retry-after')).toBe('30');
		const refused = await sandbox.control('POST', '/faults', { retry_after_s: 1.5 });
		expect(refused.status).toBe(400);
		expect(JSON.stringify(refused.body)).toContain(
			'retry_after_s must be an integer from 0 to 3600',
		);
	});
});

describe('injected socket resets', () => {
	test('the connection drops without an answer; the next request is served', async () => {
		await sandbox.faults({ reset_rate: 1, match: 'GET /agents', times: 1 });

		expect(await networkError(sandbox.api('GET', '/agents'))).toMatch(/fetch failed/);
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);
		const logged = (await sandbox.requests()).map((request) => [
			request.path,
			request.status,
			request.fault,
		]);
		expect(logged).toEqual([
			['/v1/agents', null, 'reset'],
			['/v1/agents', 200, null],
		]);
	});

	test('"after" carries out the request before dropping the connection', async () => {
		await sandbox.faults({ reset_rate: 1, match: 'POST /agent', when: 'after', times: 1 });

		expect(
			await networkError(
				sandbox.api('POST', '/agent', { body: { name: 'Created anyway', area_code: '415' } }),
			),
		).toMatch(/fetch failed/);

		expect((await listAll(sandbox, 'agents')).map((agent) => agent.name)).toEqual([
			'Created anyway',
		]);
	});
});

describe('latency', () => {
	test('latency_ms delays the matching requests', async () => {
		await sandbox.faults({ latency_ms: 300, match: 'GET /calls' });
		const started = performance.now();
		const { status } = await sandbox.api('GET', '/calls');

		expect(status).toBe(200);
		expect(performance.now() - started).toBeGreaterThanOrEqual(290);
	});

	test('the latencyMs option delays every API request', async () => {
		const slow = await startTestSandbox({ latencyMs: 200 });
		try {
			const started = performance.now();
			expect((await slow.api('GET', '/agents')).status).toBe(200);
			expect(performance.now() - started).toBeGreaterThanOrEqual(190);
		} finally {
			await slow.close();
		}
	});
});

describe('fault settings', () => {
	test('{} clears them, and reset clears them too', async () => {
		await sandbox.faults({ error_rate: 1 });
		expect((await sandbox.api('GET', '/agents')).status).toBe(500);
		expect(await sandbox.faults({})).toEqual({});
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);

		await sandbox.faults({ error_rate: 1 });
		await sandbox.reset();
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);
		expect((await sandbox.control('GET', '/faults')).body).toEqual({});
	});

	test('control endpoints are never faulted', async () => {
		await sandbox.faults({ error_rate: 1, latency_ms: 0 });

		expect(await sandbox.requests()).toEqual([]);
		expect(await sandbox.seed({ agents: 1 })).toEqual({
			agents_created: 1,
			calls_created: 0,
			live_calls_created: 0,
		});
	});

	test.each<[string, unknown]>([
		['error_rate', { error_rate: 1.5 }],
		['error_rate', { error_rate: '0.5' }],
		['reset_rate', { reset_rate: -0.1 }],
		['latency_ms', { latency_ms: -1 }],
		['latency_ms', { latency_ms: 2.5 }],
		['rate_limit_per_s', { rate_limit_per_s: -1 }],
		['status', { status: 200 }],
		['status', { status: 600 }],
		['match', { match: 'GET' }],
		['match', { match: 'GET /v1/agents' }],
		['match', { match: 'PATCH /agent' }],
		['times', { times: 0 }],
		['when', { when: 'later' }],
		['surprise', { surprise: true }],
		['object', [{ error_rate: 1 }]],
	])('answers 400 naming %s for nonsense', async (field, body) => {
		const { status, body: answer } = await sandbox.control('POST', '/faults', body);

		expect(status).toBe(400);
		expect(answer.error).toBe('Bad Request');
		expect(answer.message).toContain(field);
	});

	test('a rejected setting keeps the previous settings', async () => {
		await sandbox.faults({ error_rate: 1, match: 'GET /calls' });
		await sandbox.control('POST', '/faults', { error_rate: 7 });

		expect((await sandbox.control('GET', '/faults')).body).toEqual({
			error_rate: 1,
			match: 'GET /calls',
		});
	});
});

describe('rate limiting', () => {
	test('429 with Retry-After per key and endpoint, then success after waiting', async () => {
		await sandbox.faults({ rate_limit_per_s: 1 });
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);

		const limited = await sandbox.api('GET', '/agents');
		expect(limited.status).toBe(429);
		expect(limited.body).toEqual({ error: 'Too Many Requests', message: expect.any(String) });
		const retryAfter = limited.headers.get('retry-after');
		expect(retryAfter).toBe('1');

		// Other endpoints and other keys have buckets of their own.
		expect((await sandbox.api('GET', '/calls')).status).toBe(200);
		expect((await sandbox.api('GET', '/agents', { key: 'key-two' })).status).toBe(200);

		await sleep(Number(retryAfter) * 1000 + 50);
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);
	});

	test('Retry-After is the whole seconds until a token is available', async () => {
		await sandbox.faults({ rate_limit_per_s: 0.25, match: 'GET /calls' });
		expect((await sandbox.api('GET', '/calls')).status).toBe(200);

		const limited = await sandbox.api('GET', '/calls');
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('4');
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);
		expect((await sandbox.api('GET', '/agents')).status).toBe(200);
	});

	test('the bucket allows a burst of rate_limit_per_s requests', async () => {
		await sandbox.faults({ rate_limit_per_s: 5, match: 'GET /agents' });
		const answers = await Promise.all(
			Array.from({ length: 10 }, () => sandbox.api('GET', '/agents')),
		);
		const served = answers.filter((answer) => answer.status === 200).length;

		// 5 tokens at once; a 6th could refill while the ten requests arrive, hardly more.
		expect(served).toBeGreaterThanOrEqual(5);
		expect(served).toBeLessThanOrEqual(6);
		expect(answers.filter((answer) => answer.status === 429)).toHaveLength(10 - served);
	});
});
