/**
 * The live profile's webhook sender: `{event, call, data?}` bodies, tool_call and action as OpenAI tool
 * calls, each event sent on its own (no order), no timeout, a non-2xx answer never retried, transport
 * errors retried with exponential backoff within a window (one minute at the service), and retries that
 * may carry an empty body or repeat an event the receiver already acted on.
 */
import { useSandbox } from '../support/sandbox.cts';
import { closedPortUrl } from '../support/servers.cts';
import { sleep, waitFor } from '../support/wait.cts';
import { liveAgent, liveCall, startPlannedReceiver, type PlannedReceiver } from './liveHelpers.cts';

const RETRY_MS = 50;
const WINDOW_MS = 1000;
const sandbox = useSandbox({
	profile: 'live',
	ringMs: 3_600_000,
	callDurationMs: 3_600_000,
	webhookRetryDelayMs: RETRY_MS,
	webhookRetryWindowMs: WINDOW_MS,
});
let receiver: PlannedReceiver;

beforeEach(async () => {
	receiver = await startPlannedReceiver();
});
afterEach(() => receiver.close());

const BOOKING_TOOL = {
	type: 'function',
	function: {
		name: 'book_table',
		description: 'Books a table',
		parameters: {
			type: 'object',
			properties: { party_size: { type: 'integer' }, time: { type: 'string' } },
		},
	},
};
const TRANSFER = { name: 'transfer', instructions: 'Transfer', forwarding_number: '+14155550100' };

/** A ringing call (it would ring for an hour) of an agent with these fields. */
async function ringingCall(fields: Record<string, unknown> = {}) {
	const agent = await liveAgent(sandbox, { name: 'Hooked', webhook: receiver.url, ...fields });
	return liveCall(sandbox, agent);
}

async function deliveries(count: number) {
	return waitFor(`${count} delivery attempts`, async () => {
		const attempts = await sandbox.deliveries();
		return attempts.length >= count ? attempts : undefined;
	});
}

describe('what the live sender sends', () => {
	test('{event, call}: the whole call row, no event_type/call_id/timestamp, no signature', async () => {
		const call = await ringingCall();
		const connected = (await sandbox.control('POST', `/calls/${call.id}/connect`)).body;
		const [request] = await receiver.waitForCount(1);
		expect(JSON.parse(request.text)).toEqual({ event: 'call_started', call: connected });
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers['user-agent']).toBe('Go-http-client/1.1');
		expect(Object.keys(request.headers).filter((name) => /signature|event-id/i.test(name))).toEqual(
			[],
		);
		expect(await deliveries(1)).toEqual([
			expect.objectContaining({
				event_type: 'call_started',
				call_id: call.id,
				attempt: 1,
				status: 200,
				empty_body: false,
			}),
		]);
	});

	test('tool_call carries a list of OpenAI tool calls, action one of them; a forward ends the call', async () => {
		const call = await ringingCall({ tools: [BOOKING_TOOL], actions: [TRANSFER] });
		await sandbox.control('POST', `/calls/${call.id}/connect`, { call_duration_ms: 400 });
		await receiver.waitForCount(4);
		const byEvent = Object.fromEntries(receiver.bodies().map((body) => [body.event, body]));
		expect(Object.keys(byEvent).sort()).toEqual([
			'action',
			'call_ended',
			'call_started',
			'tool_call',
		]);

		const toolCall = {
			id: expect.stringMatching(/^call_[A-Za-z0-9]{24}$/),
			type: 'function',
			function: { name: 'book_table', arguments: expect.any(String) },
		};
		expect(byEvent.tool_call.data).toEqual([toolCall]);
		expect(JSON.parse(byEvent.tool_call.data[0].function.arguments)).toEqual({
			party_size: 1,
			time: 'sample time',
		});
		expect(byEvent.action.data).toEqual({
			...toolCall,
			function: { name: 'transfer', arguments: '{}' },
		});
		expect(byEvent.tool_call.call).toMatchObject({ id: call.id, in_progress: true });
		expect(byEvent.call_ended).not.toHaveProperty('data');
		expect(byEvent.call_ended.call).toMatchObject({
			in_progress: false,
			disconnect_reason: 'forward',
		});
	});

	test('POST /_sandbox/calls/{id}/events sends one event now and answers after its first attempt', async () => {
		const call = await ringingCall({ tools: [BOOKING_TOOL], actions: [TRANSFER] });
		const sent = await sandbox.control('POST', `/calls/${call.id}/events`, { event: 'tool_call' });
		expect(sent.body).toEqual({
			event: 'tool_call',
			call_id: call.id,
			url: receiver.url,
			status: 200,
		});
		const custom = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event: 'action',
			data: { id: 'call_x', type: 'function', function: { name: 'hang_up', arguments: '{}' } },
		});
		expect(custom.body.status).toBe(200);
		const [tool, action] = receiver.bodies();
		expect(tool).toMatchObject({ event: 'tool_call', call: { id: call.id } });
		expect(tool.data[0].function.name).toBe('book_table');
		expect(action).toMatchObject({ event: 'action', data: { function: { name: 'hang_up' } } });
		const documentedShape = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event_type: 'call_started',
		});
		expect(documentedShape.status).toBe(400);

		const silent = await liveAgent(sandbox, { name: 'No hook' });
		const unheard = await liveCall(sandbox, silent);
		const noHook = await sandbox.control('POST', `/calls/${unheard.id}/events`, {
			event: 'call_started',
		});
		expect(noHook.status).toBe(409);
	});
});

describe('how the live sender delivers', () => {
	test('a non-2xx answer is never retried: the event is dropped', async () => {
		receiver.plan = [{ status: 500 }, { status: 404 }, { status: 302 }];
		const call = await ringingCall();
		for (const event of ['call_started', 'call_ended', 'tool_call']) {
			const data = event === 'tool_call' ? [] : undefined;
			await sandbox.control('POST', `/calls/${call.id}/events`, { event, data });
		}
		// Retries would come RETRY_MS after each answer; wait past the whole retry window.
		await sleep(WINDOW_MS + 300);
		expect(receiver.received).toHaveLength(3);
		const attempts = await sandbox.deliveries();
		expect(attempts.map((entry) => [entry.event_type, entry.attempt, entry.status])).toEqual([
			['call_started', 1, 500],
			['call_ended', 1, 404],
			['tool_call', 1, 302],
		]);
	});

	test('a transport error is retried with exponential backoff, none starting after the window', async () => {
		const call = await ringingCall({ webhook: await closedPortUrl('/hook') });
		const sent = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event: 'call_started',
		});
		expect(sent.body.status).toBeNull();
		await sleep(WINDOW_MS + 500);
		const attempts = await sandbox.deliveries();
		// Waits of 50, 75, 112.5, 168.75 and 253 ms start retries at about 50, 125, 237, 406 and 659 ms; the
		// next wait (380 ms) would start one at 1039 ms, past the 1000 ms window.
		expect(attempts).toHaveLength(6);
		expect(attempts.every((entry) => entry.status === null && entry.error !== null)).toBe(true);
		expect(attempts.map((entry) => entry.attempt)).toEqual(attempts.map((_, i) => i + 1));

		const starts = attempts.map((entry) => Date.parse(entry.at));
		const waits = attempts.map((_, i) => RETRY_MS * 1.5 ** i);
		for (let i = 1; i < starts.length; i++) {
			// Each retry waits at least its backoff (the log's clock has whole milliseconds).
			expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(Math.floor(waits[i - 1]) - 1);
		}
		expect(starts[starts.length - 1] - starts[0]).toBeLessThanOrEqual(WINDOW_MS);
	});

	test('no timeout: the sender waits as long as the receiver takes (here 10.5 s) and does not retry', async () => {
		receiver.plan = [{ status: 200, delayMs: 10_500 }];
		const call = await ringingCall();
		const sent = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event: 'call_started',
		});
		expect(sent.body.status).toBe(200);
		expect(receiver.received).toHaveLength(1);
		expect((await sandbox.deliveries()).map((entry) => [entry.attempt, entry.status])).toEqual([
			[1, 200],
		]);
	}, 20_000);

	test('a response lost after the receiver acted brings the same event again', async () => {
		receiver.plan = ['reset'];
		const call = await ringingCall();
		await sandbox.control('POST', `/calls/${call.id}/events`, { event: 'call_started' });
		const [first, again] = await receiver.waitForCount(2);
		expect(again.text).toBe(first.text);
		const attempts = await deliveries(2);
		expect(attempts.map((entry) => [entry.attempt, entry.status, entry.empty_body])).toEqual([
			[1, null, false],
			[2, 200, false],
		]);
	});

	test('with empty_retry_body, a retry after a transport error carries an empty body', async () => {
		await sandbox.live({ empty_retry_body: true });
		receiver.plan = ['reset'];
		const call = await ringingCall();
		await sandbox.control('POST', `/calls/${call.id}/events`, { event: 'call_started' });
		const [first, again] = await receiver.waitForCount(2);
		expect(JSON.parse(first.text).event).toBe('call_started');
		expect(again.text).toBe('');
		expect(again.headers['content-length']).toBe('0');
		const attempts = await deliveries(2);
		expect(attempts.map((entry) => [entry.attempt, entry.status, entry.empty_body])).toEqual([
			[1, null, false],
			[2, 200, true],
		]);
	});
});

describe('each event is sent on its own', () => {
	test('with call_started delayed, a short call\u2019s call_ended arrives first', async () => {
		await sandbox.live({ event_delay_ms: { call_started: 1000 } });
		const call = await ringingCall();
		await sandbox.control('POST', `/calls/${call.id}/connect`, { call_duration_ms: 50 });
		await receiver.waitForCount(2);
		const [first, second] = receiver.bodies();
		expect([first.event, second.event]).toEqual(['call_ended', 'call_started']);
		// Each carries the call as it was when the event happened.
		expect(second.call.in_progress).toBe(true);
		expect(first.call.in_progress).toBe(false);
	});

	test('a slow answer to one event holds back none of the others', async () => {
		receiver.plan = [{ status: 200, delayMs: 1500 }];
		const call = await ringingCall();
		await sandbox.control('POST', `/calls/${call.id}/connect`, { call_duration_ms: 100 });
		await receiver.waitForCount(2);
		const attempts = await deliveries(1);
		// call_ended was answered while call_started still waited for its answer.
		expect(attempts.map((entry) => entry.event_type)).toEqual(['call_ended']);
		const both = await deliveries(2);
		expect(both.map((entry) => entry.event_type)).toEqual(['call_ended', 'call_started']);
		// Each attempt records how long it waited for its answer.
		expect(both[1].ms).toBeGreaterThanOrEqual(1500);
		expect(both[0].ms).toBeLessThan(1500);
	});
});
