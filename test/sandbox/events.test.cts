import { createAgent, placeCall } from '../support/api.cts';
import { ISO_TIMESTAMP } from '../support/fixtures.cts';
import { startTestSandbox, useSandbox } from '../support/sandbox.cts';
import { closedPortUrl, startReceiver, type WebhookReceiver } from '../support/servers.cts';
import { sleep, waitFor } from '../support/wait.cts';
import { CALL_FIELDS } from './helpers.cts';

const RETRY_DELAY_MS = 20;
const sandbox = useSandbox({ callDurationMs: 60_000, webhookRetryDelayMs: RETRY_DELAY_MS });
let receiver: WebhookReceiver;

beforeEach(async () => {
	receiver = await startReceiver();
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

async function deliveriesOf(callId: string, count: number) {
	return waitFor(`${count} delivery attempts`, async () => {
		const attempts = (await sandbox.deliveries()).filter((delivery) => delivery.call_id === callId);
		return attempts.length >= count ? attempts : undefined;
	});
}

describe('life-cycle events go to the agent webhook', () => {
	test('call_started when the call is placed, call_ended with the finished call', async () => {
		const agent = await createAgent(sandbox, {
			name: 'Hooked',
			webhook: `${receiver.url}/hooks/voice?token=s3cret`,
		});
		const call = await placeCall(sandbox, agent, { context: 'Delivery at noon' });

		const [started] = await receiver.waitForCount(1);
		expect(started.method).toBe('POST');
		expect(started.url).toBe('/hooks/voice?token=s3cret');
		expect(started.headers['content-type']).toBe('application/json');
		expect(started.body).toEqual({
			event_type: 'call_started',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			data: call,
		});

		const completed = await sandbox.control('POST', `/calls/${call.id}/complete`);
		const [, ended] = await receiver.waitForCount(2);
		expect(ended.body).toEqual({
			event_type: 'call_ended',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			data: completed.body,
		});
		expect(Object.keys(ended.body.data).sort()).toEqual(CALL_FIELDS);
		expect(ended.body.data.status).toBe('completed');
		expect(ended.body.timestamp >= started.body.timestamp).toBe(true);

		const deliveries = await sandbox.deliveries();
		expect(
			deliveries.map((delivery) => [delivery.event_type, delivery.attempt, delivery.status]),
		).toEqual([
			['call_started', 1, 200],
			['call_ended', 1, 200],
		]);
		expect(deliveries[0]).toEqual({
			url: `${receiver.url}/hooks/voice?token=s3cret`,
			event_type: 'call_started',
			call_id: call.id,
			attempt: 1,
			status: 200,
			error: null,
			response_body: 'ok',
			at: expect.stringMatching(ISO_TIMESTAMP),
		});
	});

	test('events go to the webhook the agent holds at the time of the event', async () => {
		const agent = await createAgent(sandbox, { name: 'Moving', webhook: `${receiver.url}/old` });
		const call = await placeCall(sandbox, agent);
		await receiver.waitForCount(1);

		await sandbox.api('POST', '/agent', {
			body: { name: 'Moving', webhook: `${receiver.url}/new` },
		});
		await sandbox.control('POST', `/calls/${call.id}/complete`);

		const received = await receiver.waitForCount(2);
		expect(received.map((request) => [request.url, request.body.event_type])).toEqual([
			['/old', 'call_started'],
			['/new', 'call_ended'],
		]);
	});

	test('an agent without webhook sends nothing', async () => {
		const agent = await createAgent(sandbox, { name: 'Silent' });
		const call = await placeCall(sandbox, agent);
		await sandbox.control('POST', `/calls/${call.id}/complete`);

		expect(await sandbox.deliveries()).toEqual([]);
	});
});

describe('retries', () => {
	test('a non-2xx answer is retried until a 2xx, with the same event each time', async () => {
		receiver.statuses = [500, 503];
		receiver.responseBody = 'busy';
		const agent = await createAgent(sandbox, { name: 'Retry', webhook: `${receiver.url}/hook` });
		const call = await placeCall(sandbox, agent);

		const received = await receiver.waitForCount(3);
		expect(received.map((request) => request.body)).toEqual([
			received[0].body,
			received[0].body,
			received[0].body,
		]);
		const attempts = await deliveriesOf(call.id, 3);
		expect(
			attempts.map((attempt) => [
				attempt.attempt,
				attempt.status,
				attempt.error,
				attempt.response_body,
			]),
		).toEqual([
			[1, 500, null, 'busy'],
			[2, 503, null, 'busy'],
			[3, 200, null, 'busy'],
		]);
		await sleep(RETRY_DELAY_MS * 10);
		expect(receiver.received).toHaveLength(3);
	});

	test('gives up after 4 attempts (3 retries)', async () => {
		receiver.defaultStatus = 500;
		const agent = await createAgent(sandbox, { name: 'Down', webhook: `${receiver.url}/hook` });
		const call = await placeCall(sandbox, agent);

		const attempts = await deliveriesOf(call.id, 4);
		expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4]);
		await sleep(RETRY_DELAY_MS * 15);
		expect(receiver.received).toHaveLength(4);
		expect(
			(await sandbox.deliveries()).filter((delivery) => delivery.call_id === call.id),
		).toHaveLength(4);
	});

	test('network errors are retried and recorded with status null and the error', async () => {
		const url = await closedPortUrl('/hook');
		const agent = await createAgent(sandbox, { name: 'Nowhere', webhook: url });
		const call = await placeCall(sandbox, agent);

		const attempts = await deliveriesOf(call.id, 4);
		for (const attempt of attempts) {
			expect(attempt).toMatchObject({
				url,
				event_type: 'call_started',
				status: null,
				response_body: null,
			});
			expect(attempt.error).toMatch(/ECONNREFUSED/);
		}
	});

	test('the recorded response body is cut at 2 KB', async () => {
		receiver.responseBody = 'x'.repeat(5000);
		const agent = await createAgent(sandbox, { name: 'Chatty', webhook: `${receiver.url}/hook` });
		const call = await placeCall(sandbox, agent);

		const [attempt] = await deliveriesOf(call.id, 1);
		expect(attempt.response_body).toBe('x'.repeat(2048));
	});

	test('reset stops pending retries and clears the delivery log', async () => {
		receiver.defaultStatus = 500;
		const slow = await startTestSandbox({ callDurationMs: 60_000, webhookRetryDelayMs: 200 });
		try {
			const agent = await createAgent(slow, { name: 'Reset', webhook: `${receiver.url}/hook` });
			await placeCall(slow, agent);
			await receiver.waitForCount(1);
			await slow.reset();

			await sleep(500);
			expect(receiver.received).toHaveLength(1);
			expect(await slow.deliveries()).toEqual([]);
		} finally {
			await slow.close();
		}
	});
});

describe('POST /_sandbox/calls/{id}/events', () => {
	test('delivers a tool_call now and answers with the first attempt', async () => {
		const agent = await createAgent(sandbox, { name: 'Tools', webhook: `${receiver.url}/hook` });
		const call = await placeCall(sandbox, agent);
		await receiver.waitForCount(1);

		const data = { name: 'lookup_order', arguments: { order_id: 'A-17' } };
		const { status, body } = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event_type: 'tool_call',
			data,
		});

		expect(status).toBe(200);
		expect(body).toEqual({
			event_type: 'tool_call',
			call_id: call.id,
			url: `${receiver.url}/hook`,
			status: 200,
		});
		expect(receiver.received[1].body).toEqual({
			event_type: 'tool_call',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			data,
		});
	});

	test('data defaults to the call for call_started/call_ended and to the first tool for tool_call', async () => {
		const agent = await createAgent(sandbox, {
			name: 'Defaults',
			webhook: `${receiver.url}/hook`,
			tools: [BOOKING_TOOL],
		});
		const call = await placeCall(sandbox, agent);
		await receiver.waitForCount(1);

		await sandbox.control('POST', `/calls/${call.id}/events`, { event_type: 'call_ended' });
		await sandbox.control('POST', `/calls/${call.id}/events`, { event_type: 'tool_call' });

		const received = await receiver.waitForCount(3);
		expect(received[1].body).toMatchObject({ event_type: 'call_ended', data: call });
		expect(received[2].body).toMatchObject({
			event_type: 'tool_call',
			data: {
				name: 'book_table',
				arguments: { party_size: expect.any(Number), time: expect.any(String) },
			},
		});
	});

	test('answers the status of a failing first attempt while retries continue', async () => {
		receiver.statuses = [500, 500, 500, 500, 500];
		const agent = await createAgent(sandbox, { name: 'Failing', webhook: `${receiver.url}/hook` });
		const call = await placeCall(sandbox, agent);
		await deliveriesOf(call.id, 4); // call_started used up four 500s

		const { body } = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event_type: 'call_started',
		});
		expect(body.status).toBe(500);
		const attempts = await deliveriesOf(call.id, 6);
		expect(attempts.slice(4).map((attempt) => [attempt.attempt, attempt.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
	});

	test('answers status null when the webhook cannot be reached', async () => {
		const agent = await createAgent(sandbox, {
			name: 'Unreachable',
			webhook: await closedPortUrl('/hook'),
		});
		const call = await placeCall(sandbox, agent);

		const { status, body } = await sandbox.control('POST', `/calls/${call.id}/events`, {
			event_type: 'call_ended',
		});
		expect(status).toBe(200);
		expect(body.status).toBeNull();
	});

	test('answers 404 for an unknown call, 409 without webhook, 400 for a bad event', async () => {
		expect(
			(await sandbox.control('POST', '/calls/call_unknown/events', { event_type: 'call_ended' }))
				.status,
		).toBe(404);

		const quiet = await createAgent(sandbox, { name: 'Quiet' });
		const quietCall = await placeCall(sandbox, quiet);
		const conflict = await sandbox.control('POST', `/calls/${quietCall.id}/events`, {
			event_type: 'call_ended',
		});
		expect(conflict.status).toBe(409);
		expect(conflict.body.error).toBe('Conflict');

		const hooked = await createAgent(sandbox, { name: 'Hooked', webhook: `${receiver.url}/hook` });
		const call = await placeCall(sandbox, hooked);
		for (const body of [
			{ event_type: 'call_paused' },
			{},
			{ event_type: 'call_ended', data: 'x' },
			{ event_type: 'tool_call' },
		]) {
			const result = await sandbox.control('POST', `/calls/${call.id}/events`, body);
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('Bad Request');
		}
	});
});

describe('a call that runs its course', () => {
	test('sends call_started, a tool_call for the first tool halfway, and call_ended', async () => {
		const quick = await startTestSandbox({
			callDurationMs: 200,
			webhookRetryDelayMs: RETRY_DELAY_MS,
		});
		try {
			const agent = await createAgent(quick, {
				name: 'Booker',
				webhook: `${receiver.url}/hook`,
				tools: [BOOKING_TOOL],
			});
			const call = await placeCall(quick, agent, { context: 'Party of four' });

			const received = await waitFor('call_ended', () =>
				receiver.received.some((request) => request.body.event_type === 'call_ended')
					? receiver.received
					: undefined,
			);
			const byType = Object.fromEntries(
				received.map((request) => [request.body.event_type, request.body]),
			);
			expect(received.map((request) => request.body.event_type).sort()).toEqual([
				'call_ended',
				'call_started',
				'tool_call',
			]);
			expect(byType.tool_call).toEqual({
				event_type: 'tool_call',
				call_id: call.id,
				timestamp: expect.stringMatching(ISO_TIMESTAMP),
				data: { name: 'book_table', arguments: { party_size: 1, time: 'sample time' } },
			});
			expect(byType.call_started.timestamp <= byType.tool_call.timestamp).toBe(true);
			expect(byType.tool_call.timestamp <= byType.call_ended.timestamp).toBe(true);
			expect(byType.call_ended.data.status).toBe('completed');
			expect(
				byType.call_ended.data.transcript.map((entry: { text: string }) => entry.text).join(' '),
			).toContain('Party of four');
		} finally {
			await quick.close();
		}
	});
});
