/**
 * What the contract leaves open, switched: the answer of POST /call, odd 200 answers of GET /call and
 * GET /calls, the statuses calls end with, the Date header, the form of timestamps, and a proxy's HTML
 * error pages. The nodes' suites use these switches.
 */
import { allCalls, createAgent, endCall, getCall } from '../support/api.cts';
import { startTestSandbox, useSandbox } from '../support/sandbox.cts';
import { waitFor } from '../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

const variants = (body: unknown) => sandbox.control('POST', '/variants', body);

describe('the answer of POST /call', () => {
	test.each([
		['status_call_id', 200, (call: any) => ({ status: 'success', call_id: call.id })],
		['null', 200, () => null],
		['empty_201', 201, () => null],
		['empty_202', 202, () => null],
	])('%s: the call is placed, and the answer is %s', async (shape, status, expected) => {
		const agent = await createAgent(sandbox);
		expect((await variants({ create_answer: shape })).status).toBe(200);

		const answer = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});

		const [placed] = await allCalls(sandbox);
		expect(placed).toMatchObject({ client_number: '+14155550123', status: 'in_progress' });
		expect(answer.status).toBe(status);
		expect(answer.body).toEqual(expected(placed));
	});

	test('an empty answer has no body and no content type at all', async () => {
		const agent = await createAgent(sandbox);
		await variants({ create_answer: 'empty_202' });
		const response = await fetch(`${sandbox.baseUrl}/call`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ from: agent.phone_number, to: '+14155550123' }),
		});
		expect(response.status).toBe(202);
		expect(response.headers.get('content-type')).toBeNull();
		expect(await response.text()).toBe('');
	});
});

describe('end statuses', () => {
	test('calls that end by themselves take the end statuses in turn; 0000 numbers still fail', async () => {
		const quick = await startTestSandbox({
			callDurationMs: 1,
			variants: { end_statuses: ['busy', 'no-answer'] },
		});
		try {
			const agent = await createAgent(quick);
			for (const to of ['+14155550101', '+14155550102', '+14155550000', '+14155550103']) {
				await quick.api('POST', '/call', { body: { from: agent.phone_number, to } });
				await waitFor('the call to end', async () =>
					(await allCalls(quick))[0].status !== 'in_progress' ? true : undefined,
				);
			}
			const byNumber = Object.fromEntries(
				(await allCalls(quick)).map((call) => [call.client_number, call.status]),
			);
			expect(byNumber).toEqual({
				'+14155550101': 'busy',
				'+14155550102': 'no-answer',
				'+14155550000': 'failed',
				'+14155550103': 'busy',
			});
		} finally {
			await quick.close();
		}
	});

	test('seeded ended calls are drawn from them too', async () => {
		await variants({ end_statuses: ['voicemail'] });
		await sandbox.seed({ calls: 50 });
		const statuses = new Set((await allCalls(sandbox)).map((call) => call.status));
		expect([...statuses].sort()).toEqual(['failed', 'voicemail']);
	});

	test('a call ended through the control endpoint may take any end status, never in_progress', async () => {
		const agent = await createAgent(sandbox);
		const placed = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});
		expect((await endCall(sandbox, placed.body.id, 'canceled')).status).toBe('canceled');
		expect(await getCall(sandbox, placed.body.id)).toMatchObject({
			status: 'canceled',
			ended_at: expect.any(String),
		});
		const refused = await sandbox.control('POST', `/calls/${placed.body.id}/complete`, {
			status: 'in_progress',
		});
		expect(refused.status).toBe(400);
	});
});

describe('the Date header and timestamps', () => {
	test('date_header false: API answers carry no Date header', async () => {
		expect((await sandbox.api('GET', '/calls')).headers.get('date')).not.toBeNull();
		await variants({ date_header: false });
		expect((await sandbox.api('GET', '/calls')).headers.get('date')).toBeNull();
	});

	test.each([
		['utc_offset', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/],
		['whole_seconds', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/],
		['local_offset', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-05:00$/],
	])(
		'timestamps %s: every time of an answer is the same instant in that form',
		async (form, shape) => {
			const agent = await createAgent(sandbox);
			const iso = await sandbox.api('POST', '/call', {
				body: { from: agent.phone_number, to: '+14155550123' },
			});
			await variants({ timestamps: form });
			const call = await getCall(sandbox, iso.body.id);
			const [listed] = await allCalls(sandbox);
			expect(call.created_at).toMatch(shape);
			expect(listed.created_at).toMatch(shape);
			// The same instant, to the second the form keeps.
			expect(Math.floor(Date.parse(call.created_at) / 1000)).toBe(
				Math.floor(Date.parse(iso.body.created_at) / 1000),
			);
		},
	);

	test('timestamps no_zone and local_no_zone: the UTC time, or the time at -05:00, without a zone', async () => {
		const agent = await createAgent(sandbox);
		const iso = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});
		await variants({ timestamps: 'no_zone' });
		const call = await getCall(sandbox, iso.body.id);
		const [listed] = await allCalls(sandbox);
		expect(call.created_at).toBe(iso.body.created_at.replace(/Z$/, ''));
		expect(listed.created_at).toBe(call.created_at);
		expect(call.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
		await variants({ timestamps: 'local_no_zone' });
		const atMinus5 = Date.parse(iso.body.created_at) - 5 * 3_600_000;
		expect((await getCall(sandbox, iso.body.id)).created_at).toBe(
			new Date(atMinus5).toISOString().replace(/Z$/, ''),
		);
	});
});

describe('proxy errors', () => {
	test('an injected 5xx is answered with an HTML page instead of the service error body', async () => {
		await variants({ proxy_errors: true });
		await sandbox.faults({ match: 'GET /calls', error_rate: 1, status: 503 });
		const answer = await sandbox.api('GET', '/calls');
		expect(answer.status).toBe(503);
		expect(answer.headers.get('content-type')).toBe('text/html');
		expect(answer.body).toMatch(/^<html>[\s\S]*Service Temporarily Unavailable/);
	});
});

describe('odd answers of GET /call and GET /calls', () => {
	/** The raw answer: status, content type and text, whatever the text is. */
	async function raw(path: string) {
		const response = await fetch(`${sandbox.baseUrl}${path}`, {
			headers: { authorization: `Bearer ${sandbox.apiKey}` },
		});
		return {
			status: response.status,
			type: response.headers.get('content-type'),
			text: await response.text(),
		};
	}

	async function oneCall() {
		const agent = await createAgent(sandbox);
		const placed = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});
		return placed.body as { id: string; status: string };
	}

	test.each([
		['null', (call: any) => expect(JSON.parse(call.text)).toBeNull()],
		[
			'array',
			(call: any) =>
				expect(JSON.parse(call.text)).toEqual([expect.objectContaining({ id: call.id })]),
		],
		['html', (call: any) => expect(call.type).toBe('text/html')],
		['truncated', (call: any) => expect(() => JSON.parse(call.text)).toThrow(SyntaxError)],
		['missing_fields', (call: any) => expect(JSON.parse(call.text)).not.toHaveProperty('status')],
		['mistyped_fields', (call: any) => expect(typeof JSON.parse(call.text).id).toBe('number')],
	])('call_answer %s: GET /call answers 200 with it', async (odd, check) => {
		const placed = await oneCall();
		await variants({ call_answer: odd });
		const answer = await raw(`/call?id=${placed.id}`);
		expect(answer.status).toBe(200);
		check({ ...answer, id: placed.id });
		// A call that does not exist is still a 404: only answers with the call change.
		expect((await raw('/call?id=call_none')).status).toBe(404);
	});

	test.each([
		['null', (text: string) => expect(JSON.parse(text)).toBeNull()],
		['array', (text: string) => expect(Array.isArray(JSON.parse(text))).toBe(true)],
		['truncated', (text: string) => expect(() => JSON.parse(text)).toThrow(SyntaxError)],
		['missing_fields', (text: string) => expect(JSON.parse(text)).not.toHaveProperty('calls')],
		[
			'mistyped_fields',
			(text: string) => expect(Array.isArray(JSON.parse(text).calls)).toBe(false),
		],
	])('calls_answer %s: GET /calls answers 200 with it', async (odd, check) => {
		await oneCall();
		await variants({ calls_answer: odd });
		const answer = await raw('/calls');
		expect(answer.status).toBe(200);
		check(answer.text);
	});

	test('every n-th answer, and only so many times; other routes answer as usual', async () => {
		const placed = await oneCall();
		await variants({ call_answer: 'null', odd_answers_every: 2, odd_answers_times: 2 });
		const texts: string[] = [];
		for (let read = 0; read < 6; read++) texts.push((await raw(`/call?id=${placed.id}`)).text);
		expect(texts.map((text) => text === 'null')).toEqual([true, false, true, false, false, false]);
		expect(Array.isArray(JSON.parse((await raw('/calls')).text).calls)).toBe(true);
	});
});

describe('a call list that lags', () => {
	test('list_lag_ms: a new call is found by GET /call at once, and in GET /calls only after the lag', async () => {
		const agent = await createAgent(sandbox);
		await variants({ list_lag_ms: 400 });

		const placed = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});

		expect(placed.status).toBe(200);
		expect((await getCall(sandbox, placed.body.id)).id).toBe(placed.body.id);
		expect(await allCalls(sandbox)).toEqual([]);
		const listed = await waitFor('the call in the list', async () => {
			const calls = await allCalls(sandbox);
			return calls.length > 0 ? calls : undefined;
		});
		expect(listed.map((call: any) => call.id)).toEqual([placed.body.id]);
	});
});

describe('control', () => {
	test('GET shows the variants in force; unknown or wrong ones are refused; reset restores the start ones', async () => {
		expect((await sandbox.control('GET', '/variants')).body).toEqual({});
		expect((await variants({ create_answer: 'empty_202' })).body).toEqual({
			create_answer: 'empty_202',
		});
		expect((await variants({ shape: 'x' })).status).toBe(400);
		expect((await variants({ end_statuses: [] })).status).toBe(400);
		expect((await variants({ timestamps: 'unix' })).body.message).toMatch(/^timestamps must be/);
		expect((await variants({ call_answer: 'xml' })).body.message).toMatch(/^call_answer must be/);
		expect((await variants({ odd_answers_every: 0 })).status).toBe(400);
		await sandbox.reset();
		expect((await sandbox.control('GET', '/variants')).body).toEqual({});
	});

	test('a bad start option is refused with the variant named', async () => {
		await expect(startTestSandbox({ variants: { create_answer: 'xml' } as never })).rejects.toThrow(
			/^variants: create_answer must be/,
		);
	});
});
