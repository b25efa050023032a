/**
 * How a live key is answered: JSON sent as text/plain with a newline, plain-text errors, agents as rows
 * with numeric ids (upserts that wipe, DELETE 204), the variants and faults that apply, seeding; and that a
 * documented key and a live key in one sandbox never meet.
 */
import { createAgent, placeCall } from '../support/api.cts';
import { ISO_TIMESTAMP } from '../support/fixtures.cts';
import { useSandbox } from '../support/sandbox.cts';
import {
	LIVE_AGENT_FIELDS,
	LIVE_CALL_FIELDS,
	ZERO_TIME,
	liveAgent,
	liveCall,
	okRow,
} from './liveHelpers.cts';

describe('a live key', () => {
	const sandbox = useSandbox({ profile: 'live', ringMs: 3_600_000, callDurationMs: 3_600_000 });

	test('success: JSON sent as text/plain; charset=utf-8 with a trailing newline', async () => {
		const agent = await liveAgent(sandbox, { name: 'Plain' });
		await liveCall(sandbox, agent);
		for (const [path, query] of [
			['/agents', {}],
			['/agent', { id: agent.id }],
			['/calls', {}],
			['/call', { id: 5001 }],
		] as const) {
			const result = await sandbox.api('GET', path, { query });
			expect(result.status).toBe(200);
			expect(result.headers.get('content-type')).toBe('text/plain; charset=utf-8');
			expect(result.text).toBe(`${JSON.stringify(result.body)}\n`);
		}
	});

	test('errors are plain text, "<message>\\n", as Go\u2019s http.Error writes them', async () => {
		const cases: [string, string, Parameters<typeof sandbox.api>[2], number, string][] = [
			['GET', '/calls', { key: null }, 401, 'Unauthorized\n'],
			['GET', '/calls', { key: 'not-a-key' }, 401, 'Unauthorized\n'],
			[
				'GET',
				'/calls',
				{ key: null, headers: { authorization: 'Basic x' } },
				401,
				'Unauthorized\n',
			],
			['GET', '/nothing', {}, 404, '404 page not found\n'],
			['PUT', '/agent', { body: {} }, 405, 'Method Not Allowed\n'],
			['DELETE', '/calls', {}, 405, 'Method Not Allowed\n'],
			['GET', '/call', { query: { id: 999 } }, 404, 'Call not found\n'],
			['GET', '/call', { query: { id: 'call_1' } }, 400, 'Invalid id parameter\n'],
			['GET', '/agent', { query: { id: 999 } }, 404, 'Agent not found\n'],
			['POST', '/agent', { rawBody: 'not json' }, 400, 'Invalid request payload\n'],
			['POST', '/agent', {}, 400, 'Invalid request payload\n'],
			[
				'POST',
				'/agent',
				{ body: { name: 'A', endpointing: '300' } },
				400,
				'Invalid request payload\n',
			],
			['POST', '/agent', { body: { name: 'A', tools: {} } }, 400, 'Invalid request payload\n'],
			['GET', '/agents', { query: { limit: 'ten' } }, 400, 'Invalid limit parameter\n'],
		];
		for (const [method, path, options, status, text] of cases) {
			const result = await sandbox.api(method, path, options);
			expect([method, path, result.status, result.text]).toEqual([method, path, status, text]);
			expect(result.headers.get('content-type')).toBe('text/plain; charset=utf-8');
			expect(result.headers.get('x-content-type-options')).toBe('nosniff');
		}
		const outside = await fetch(`${sandbox.origin}/elsewhere`);
		expect([outside.status, await outside.text()]).toEqual([404, '404 page not found\n']);
		const wrongMethod = await sandbox.api('PUT', '/call');
		expect(wrongMethod.headers.get('allow')).toBe('POST, GET');
		// Only the endpoints that decode a body read it: DELETE /agent ignores one that is not JSON.
		const agent = await liveAgent(sandbox, { name: 'Ignored body' });
		const deleted = await sandbox.api('DELETE', '/agent', {
			query: { id: agent.id },
			rawBody: '{',
		});
		expect(deleted.status).toBe(204);
	});

	test('agents are rows with numeric ids; POST /agent upserts by exact name and answers 200 either way', async () => {
		const created = await liveAgent(sandbox, {
			name: 'Desk',
			area_code: '415',
			system_prompt: 'Prompt',
			llm_model: 'gpt-4o',
			language: 'de',
			tools: [{ type: 'function', function: { name: 'x' } }],
			filler_words_whitelist: ['um'],
		});
		expect(Object.keys(created).sort()).toEqual(LIVE_AGENT_FIELDS);
		expect(Number.isInteger(created.id) && Number.isInteger(created.user_id)).toBe(true);
		expect(created).toMatchObject({ deleted_at: null, language: 'de', actions: null });

		// An update replaces every field: what it does not send is wiped to its zero value.
		const updated = await liveAgent(sandbox, { name: 'Desk', voice_id: 'nova' });
		expect(updated).toEqual({
			...created,
			updated_at: expect.any(String),
			system_prompt: '',
			llm_model: '',
			language: '',
			tools: null,
			filler_words_whitelist: null,
			voice_id: 'nova',
		});
		expect(updated.updated_at >= created.updated_at).toBe(true);
		const otherCase = await liveAgent(sandbox, { name: 'desk' });
		expect(otherCase.id).not.toBe(created.id);
	});

	test('area_code is never read, each create buys a new number; DELETE answers 204 with no body', async () => {
		const numbers = new Set<string>();
		for (const [index, areaCode] of ['415', 415, 'nope', undefined].entries()) {
			const agent = await liveAgent(sandbox, {
				name: `Area ${index}`,
				area_code: areaCode,
			});
			numbers.add(agent.phone_number);
		}
		expect(numbers.size).toBe(4);

		const first = await liveAgent(sandbox, { name: 'Again' });
		const deleted = await sandbox.api('DELETE', '/agent', { query: { id: first.id } });
		expect([deleted.status, deleted.text, deleted.headers.get('content-type')]).toEqual([
			204,
			'',
			null,
		]);
		expect((await sandbox.api('GET', '/agent', { query: { id: first.id } })).text).toBe(
			'Agent not found\n',
		);
		expect((await sandbox.api('DELETE', '/agent', { query: { id: first.id } })).status).toBe(404);
		const second = await liveAgent(sandbox, { name: 'Again' });
		expect(second.id).toBeGreaterThan(first.id);
		expect(second.phone_number).not.toBe(first.phone_number);
	});

	test('rate limits and injected faults answer in plain text; a 429 carries Retry-After', async () => {
		await sandbox.faults({ rate_limit_per_s: 1, match: 'GET /calls' });
		await sandbox.api('GET', '/calls');
		const limited = await sandbox.api('GET', '/calls');
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
		expect(limited.headers.get('content-type')).toBe('text/plain; charset=utf-8');
		expect(limited.text).toMatch(/\n$/);

		await sandbox.faults({ error_rate: 1, status: 429, retry_after_s: 7, times: 1 });
		const injected = await sandbox.api('GET', '/agents');
		expect([injected.status, injected.text, injected.headers.get('retry-after')]).toEqual([
			429,
			'Too Many Requests\n',
			'7',
		]);
		await sandbox.faults({ error_rate: 1, status: 503, times: 1 });
		expect((await sandbox.api('GET', '/agents')).text).toBe('Service Unavailable\n');
		await sandbox.faults({ error_rate: 1, times: 1, match: 'GET /calls' });
		expect((await sandbox.api('GET', '/calls')).text).toBe('Failed to fetch calls\n');
		await sandbox.variants({ proxy_errors: true });
		await sandbox.faults({ error_rate: 1, status: 502, times: 1 });
		const proxied = await sandbox.api('GET', '/agents');
		expect(proxied.headers.get('content-type')).toBe('text/html');
	});

	test('variants: odd answers in the live form, no Date header; the documented forms leave it alone', async () => {
		const agent = await liveAgent(sandbox, { name: 'Odd' });
		const call = await liveCall(sandbox, agent);
		await sandbox.variants({
			call_answer: 'truncated',
			date_header: false,
			timestamps: 'whole_seconds',
		});
		const cut = await sandbox.api('GET', '/call', { query: { id: call.id } });
		expect(cut.headers.get('content-type')).toBe('text/plain; charset=utf-8');
		expect(`${JSON.stringify(call)}\n`.startsWith(cut.text)).toBe(true);
		expect(cut.text.length).toBeLessThan(JSON.stringify(call).length);
		expect(cut.headers.get('date')).toBeNull();
		await sandbox.variants({ call_answer: 'mistyped_fields', timestamps: 'whole_seconds' });
		const mistyped = okRow(await sandbox.api('GET', '/call', { query: { id: call.id } }));
		expect(mistyped).toMatchObject({ id: String(call.id), in_progress: 'false' });
		expect(mistyped.created_at).toBe(call.created_at);
		await sandbox.variants({ create_answer: 'empty_202', end_statuses: ['busy'] });
		expect(Object.keys(await liveCall(sandbox, agent)).sort()).toEqual(LIVE_CALL_FIELDS);
	});

	test('seeding writes live rows: ended calls, calls never answered, calls in progress', async () => {
		expect(await sandbox.seed({ agents: 2, calls: 60, live_calls: 3 })).toEqual({
			agents_created: 2,
			calls_created: 60,
			live_calls_created: 3,
		});
		const calls = okRow(await sandbox.api('GET', '/calls', { query: { limit: 100 } })).calls;
		expect(calls).toHaveLength(63);
		expect(
			calls.every((call: any) => Object.keys(call).sort().join() === LIVE_CALL_FIELDS.join()),
		).toBe(true);
		const live = calls.filter((call: any) => call.in_progress);
		const ringing = calls.filter((call: any) => !call.in_progress && call.ended_at === ZERO_TIME);
		const ended = calls.filter((call: any) => call.ended_at !== ZERO_TIME);
		expect(live).toHaveLength(3);
		expect(ringing.length + ended.length).toBe(60);
		expect(ringing.length).toBeGreaterThan(0);
		expect(
			ringing.every((call: any) => call.client_number === '' && call.transcript === null),
		).toBe(true);
		expect(ended.every((call: any) => call.transcript[0].role === 'system')).toBe(true);
		const load = (await sandbox.control('GET', '/call-load')).body.accounts[0];
		expect(load).toMatchObject({ in_progress: 3, calls_created: 0 });
	});
});

describe('a documented key and a live key in one sandbox', () => {
	const DOCUMENTED = 'documented-key';
	const LIVE = 'live-key';
	const sandbox = useSandbox({
		apiKeys: [DOCUMENTED, LIVE],
		profiles: { [LIVE]: 'live' },
		ringMs: 3_600_000,
		callDurationMs: 3_600_000,
	});

	test('never meet: each key sees its own agents and calls, in its own form', async () => {
		expect((await sandbox.profiles()).accounts).toEqual([
			{ account: 0, profile: 'documented' },
			{ account: 1, profile: 'live' },
		]);
		const documentedAgent = await createAgent(sandbox, { name: 'Same name' }, DOCUMENTED);
		const liveAgentRow = await liveAgent(sandbox, { name: 'Same name' }, LIVE);
		expect(typeof documentedAgent.id).toBe('string');
		expect(typeof liveAgentRow.id).toBe('number');
		const documentedCall = await placeCall(sandbox, documentedAgent, {}, DOCUMENTED);
		const liveCallRow = await liveCall(sandbox, liveAgentRow, {}, LIVE);
		expect(documentedCall.created_at).toMatch(ISO_TIMESTAMP);
		expect(documentedCall.status).toBe('in_progress');

		const documentedLists = await sandbox.api('GET', '/calls', { key: DOCUMENTED });
		expect(documentedLists.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(documentedLists.body.calls.map((call: any) => call.id)).toEqual([documentedCall.id]);
		const liveLists = await sandbox.api('GET', '/calls', { key: LIVE });
		expect(liveLists.body.calls.map((call: any) => call.id)).toEqual([liveCallRow.id]);

		// Neither finds the other's rows, and each answers in its own form.
		const crossLive = await sandbox.api('GET', '/call', {
			key: LIVE,
			query: { id: documentedCall.id },
		});
		expect([crossLive.status, crossLive.text]).toEqual([400, 'Invalid id parameter\n']);
		const crossDocumented = await sandbox.api('GET', '/call', {
			key: DOCUMENTED,
			query: { id: liveCallRow.id },
		});
		expect(crossDocumented.status).toBe(404);
		expect(crossDocumented.body).toMatchObject({ error: 'Not Found' });
		const fromOther = await sandbox.api('POST', '/call', {
			key: LIVE,
			body: { from: documentedAgent.phone_number, to: '+14155550123' },
		});
		expect(fromOther.text).toBe("Invalid 'from' phone number\n");
		// An unknown key is answered in the first key's form.
		expect((await sandbox.api('GET', '/calls', { key: 'stranger' })).body).toMatchObject({
			error: 'Unauthorized',
		});
		const load = (await sandbox.control('GET', '/call-load')).body.accounts;
		expect(load.map((entry: any) => entry.calls_created)).toEqual([1, 1]);
	});

	test('seeding goes to the key\u2019s profile; reset keeps every key\u2019s profile', async () => {
		await sandbox.seed({ api_key: LIVE, calls: 3 });
		await sandbox.seed({ api_key: DOCUMENTED, calls: 3 });
		const live = okRow(await sandbox.api('GET', '/calls', { key: LIVE })).calls;
		expect(live.every((call: any) => Number.isInteger(call.id) && !('status' in call))).toBe(true);
		const documented = (await sandbox.api('GET', '/calls', { key: DOCUMENTED })).body.calls;
		expect(documented.every((call: any) => typeof call.id === 'string' && 'status' in call)).toBe(
			true,
		);

		await sandbox.reset();
		expect((await sandbox.profiles()).accounts.map((entry: any) => entry.profile)).toEqual([
			'documented',
			'live',
		]);
		const after = await sandbox.api('GET', '/calls', { key: LIVE });
		expect([after.headers.get('content-type'), after.text]).toEqual([
			'text/plain; charset=utf-8',
			'{"num_items":0,"calls":[]}\n',
		]);
		const again = await liveAgent(sandbox, { name: 'First again' }, LIVE);
		expect(again.id).toBe(101);
	});
});
