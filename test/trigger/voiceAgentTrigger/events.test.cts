/**
 * Events the sandbox delivers to the Voice Agent Trigger over HTTP, received by the node's webhook() in
 * n8n-core's WebhookContext. See ./trigger.cts for what is real and what stands in for n8n.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createAgent, getAgent, getCall, placeCall } from '../../support/api.cts';
import { CHECK_ORDER_TOOL, ISO_TIMESTAMP, transcriptLines } from '../../support/fixtures.cts';
import { startTestSandbox, useSandbox } from '../../support/sandbox.cts';
import { post, useTriggers, type StartTriggerOptions, type TriggerHarness } from './trigger.cts';
import { sleep } from '../../support/wait.cts';
import { splitWebhook, useWarnings } from './helpers.cts';

// Calls placed here never end by themselves; the tests end them.
const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);
const warnings = useWarnings();

const EVENT_FIELDS = ['call_id', 'data', 'dedupe_key', 'event_type', 'timestamp'];
const DEDUPE_KEY = /^[0-9a-f]{32}$/;

/**
 * An agent with a function tool, a call of it in progress (placed before the trigger, so its call_started
 * went nowhere), and an active trigger on the agent.
 */
async function activeTrigger(parameters: INodeParameters = {}, options: StartTriggerOptions = {}) {
	const agent = await createAgent(sandbox, { name: 'Orders', tools: [CHECK_ORDER_TOOL] });
	const call = await placeCall(sandbox, agent);
	const trigger = await triggers.start(agent.id, parameters, options);
	await trigger.activate();
	const webhook: string = (await getAgent(sandbox, agent.id)).webhook;
	return { agent, call, trigger, webhook };
}

/** Has the sandbox send one event of the call to its agent's webhook now; answers the first attempt. */
async function sendEvent(callId: string, event: IDataObject) {
	const { status, body } = await sandbox.control('POST', `/calls/${callId}/events`, event);
	if (status !== 200)
		throw new Error(`events endpoint answered ${status}: ${JSON.stringify(body)}`);
	return body as { event_type: string; call_id: string; url: string; status: number };
}

async function deliveriesOf(callId: string) {
	return (await sandbox.deliveries()).filter((delivery) => delivery.call_id === callId);
}

/** Gives retries (20 ms apart in this suite) time to happen, to check that none did. */
function settle(): Promise<void> {
	return sleep(200);
}

function only(trigger: TriggerHarness): IDataObject {
	expect(trigger.executions).toHaveLength(1);
	expect(trigger.executions[0].items).toHaveLength(1);
	return trigger.executions[0].items[0];
}

describe('events start the workflow with one item { event_type, call_id, timestamp, dedupe_key, data }', () => {
	test('call_started, when a call of the agent is placed', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();

		const call = await placeCall(sandbox, agent);
		await trigger.waitForExecutions(1);

		const item = only(trigger);
		expect(Object.keys(item).sort()).toEqual(EVENT_FIELDS);
		expect(item).toEqual({
			event_type: 'call_started',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			data: call,
		});
		expect(trigger.executions[0].kind).toBe('production');
	});

	test('tool_call, with the tool name and its arguments, also as tool_name / tool_arguments', async () => {
		const { call, trigger } = await activeTrigger();

		const sent = await sendEvent(call.id, { event_type: 'tool_call' });

		expect(sent.status).toBe(200);
		expect(only(trigger)).toEqual({
			event_type: 'tool_call',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			data: { name: 'check_order', arguments: { order_id: 'sample order_id' } },
			tool_name: 'check_order',
			tool_arguments: { order_id: 'sample order_id' },
		});
	});

	test("a tool call's name and arguments can be used in n8n expressions", async () => {
		const { call, trigger } = await activeTrigger();

		await sendEvent(call.id, {
			event_type: 'tool_call',
			data: { name: 'check_order', arguments: { order_id: '1042' } },
		});

		const item = only(trigger);
		expect(trigger.evaluate('={{ $json.tool_name }}', item)).toBe('check_order');
		expect(
			trigger.evaluate('=Order {{ $json.tool_arguments.order_id }} ships tomorrow', item),
		).toBe('Order 1042 ships tomorrow');
		// The reason for tool_arguments: n8n's expression sandbox refuses the name "arguments".
		expect(() => trigger.evaluate('={{ $json.data.arguments.order_id }}', item)).toThrow(
			'arguments',
		);
	});

	test('a tool call without arguments has empty tool_arguments', async () => {
		const { call, trigger } = await activeTrigger();

		await sendEvent(call.id, { event_type: 'tool_call', data: { name: 'hang_up' } });

		expect(only(trigger)).toEqual({
			event_type: 'tool_call',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			data: { name: 'hang_up' },
			tool_name: 'hang_up',
			tool_arguments: {},
		});
	});

	test('call_ended, when the call completes, with the ended call and no "call" unless asked for', async () => {
		const { call, trigger } = await activeTrigger();

		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
		await trigger.waitForExecutions(1);

		const item = only(trigger);
		expect(Object.keys(item).sort()).toEqual(EVENT_FIELDS);
		const ended = await getCall(sandbox, call.id);
		expect(ended.status).toBe('completed');
		expect(item).toEqual({
			event_type: 'call_ended',
			call_id: call.id,
			timestamp: expect.stringMatching(ISO_TIMESTAMP),
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			data: ended,
		});
	});

	test('call_ended with "Include Call Details": the item has "call" with the transcript', async () => {
		const { call, trigger } = await activeTrigger({ options: { includeCallDetails: true } });

		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
		await trigger.waitForExecutions(1);

		const item = only(trigger);
		const ended = await getCall(sandbox, call.id);
		expect(ended.transcript.length).toBeGreaterThan(0);
		expect(item.event_type).toBe('call_ended');
		expect(item.call).toEqual(ended);
	});

	test('"Include Call Details" with Transcript Format Text: the call\'s transcript as one text, a line per turn', async () => {
		const { call, trigger } = await activeTrigger({
			options: { includeCallDetails: true, transcriptFormat: 'text' },
		});

		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
		await trigger.waitForExecutions(1);

		const { transcript, ...ended } = await getCall(sandbox, call.id);
		expect(only(trigger).call).toEqual({
			...ended,
			transcript_text: transcriptLines({ transcript }),
		});
	});

	test('"Include Call Details" adds nothing to other events', async () => {
		const { call, trigger } = await activeTrigger({ options: { includeCallDetails: true } });

		await sendEvent(call.id, { event_type: 'call_started' });

		expect(Object.keys(only(trigger)).sort()).toEqual(EVENT_FIELDS);
	});

	test('a whole call as the service plays it: call_started, tool_call, call_ended in order', async () => {
		const shortCalls = await startTestSandbox({ callDurationMs: 600, webhookRetryDelayMs: 20 });
		try {
			const agent = await createAgent(shortCalls, { name: 'Orders', tools: [CHECK_ORDER_TOOL] });
			const trigger = await triggers.start(
				agent.id,
				{},
				{ credentials: { apiKey: shortCalls.apiKey, baseUrl: shortCalls.baseUrl } },
			);
			await trigger.activate();

			const call = await placeCall(shortCalls, agent);
			await trigger.waitForExecutions(3);

			expect(
				trigger.executions.map((execution) => execution.items.map((item) => item.event_type)),
			).toEqual([['call_started'], ['tool_call'], ['call_ended']]);
			expect(trigger.executions.every((execution) => execution.items[0].call_id === call.id)).toBe(
				true,
			);
			expect(trigger.executions[2].items[0].data).toMatchObject({
				id: call.id,
				status: 'completed',
			});
		} finally {
			await shortCalls.close();
		}
	});
});

describe('deliveries that must not start the workflow', () => {
	const validEvent = (callId: string) =>
		JSON.stringify({
			event_type: 'call_started',
			call_id: callId,
			timestamp: '2026-11-22T10:15:30.123Z',
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			data: {},
		});

	test('without the token: 401', async () => {
		const { call, trigger } = await activeTrigger();

		const answer = await post(trigger.url('production'), validEvent(call.id));

		expect(answer).toEqual({
			status: 401,
			body: { error: 'Unauthorized', message: 'Missing or wrong token' },
		});
		expect(trigger.executions).toEqual([]);
	});

	test('with a wrong token: 401', async () => {
		const { call, trigger, webhook } = await activeTrigger();
		const { params } = splitWebhook(webhook);
		const wrong = `${params.token.slice(0, -1)}${params.token.endsWith('0') ? '1' : '0'}`;

		const answers = [
			await post(`${trigger.url('production')}?token=${wrong}`, validEvent(call.id)),
			await post(`${trigger.url('production')}?token=`, validEvent(call.id)),
			await post(
				`${trigger.url('production')}?token=${params.token}&token=${params.token}`,
				validEvent(call.id),
			),
			await post(`${trigger.url('production')}?secret=${params.token}`, validEvent(call.id)),
		];

		expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401]);
		expect(trigger.executions).toEqual([]);
		// Each refusal is in n8n's log at warn level with its reason, and without any token.
		expect(warnings.messages()).toEqual(
			Array(4).fill('Voice Agent Trigger answered 401 (unauthorized) and started no execution'),
		);
		expect(JSON.stringify(warnings.metadata())).not.toContain(params.token.slice(0, 12));
		expect(JSON.stringify(warnings.metadata())).not.toContain(wrong.slice(0, 12));
	});

	test('the right token, sent by hand, does start it (the check is the token, not the sender)', async () => {
		const { call, trigger, webhook } = await activeTrigger();

		const answer = await post(webhook, validEvent(call.id));

		expect(answer).toEqual({ status: 200, body: { received: true } });
		expect(only(trigger)).toEqual({
			event_type: 'call_started',
			call_id: call.id,
			timestamp: '2026-11-22T10:15:30.123Z',
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			data: {},
		});
	});

	test.each([
		['a text body', 'call_started', 'text/plain'],
		[
			'a JSON array of events',
			'[{"event_type":"call_started","call_id":"c","timestamp":"t","data":{}}]',
			'application/json',
		],
		['a JSON string', '"call_started"', 'application/json'],
		['a JSON number', '42', 'application/json'],
		['JSON null', 'null', 'application/json'],
		['an empty body', '', 'application/json'],
		['an object without event_type', '{"call_id":"c","data":{}}', 'application/json'],
		['an object whose event_type is not a string', '{"event_type":42}', 'application/json'],
		['an object with an empty event_type', '{"event_type":""}', 'application/json'],
		['an object whose event is not a string', '{"event":5,"call":{"id":1}}', 'application/json'],
		['a live event cut short, sent as text', '{"event":"call_ended","call":{"id":50', 'text/plain'],
	])('%s: 400', async (_name, body, contentType) => {
		const { trigger, webhook } = await activeTrigger();

		const answer = await post(webhook, body, contentType);

		expect(answer).toEqual({
			status: 400,
			body: {
				error: 'Bad Request',
				message: 'Expected an event: a JSON object with an "event_type" (or "event")',
			},
		});
		expect(trigger.executions).toEqual([]);
	});

	test('an event type the trigger does not know (a newer service) is acknowledged with 200 and starts nothing', async () => {
		const { call, trigger, webhook } = await activeTrigger();

		const answer = await post(
			webhook,
			JSON.stringify({ event_type: 'call_transferred', call_id: call.id, data: {} }),
		);

		expect(answer).toEqual({ status: 200, body: { received: true, ignored: true } });
		expect(trigger.executions).toEqual([]);
	});

	test('an event that was not selected is acknowledged with 200 and starts nothing', async () => {
		const { call, trigger } = await activeTrigger({ events: ['call_ended'] });

		const sent = await sendEvent(call.id, { event_type: 'call_started' });
		await sendEvent(call.id, { event_type: 'tool_call' });
		await settle();

		expect(sent.status).toBe(200);
		const deliveries = await deliveriesOf(call.id);
		expect(
			deliveries.map((delivery) => [delivery.event_type, delivery.attempt, delivery.status]),
		).toEqual([
			['call_started', 1, 200],
			['tool_call', 1, 200],
		]);
		expect(deliveries.map((delivery) => JSON.parse(delivery.response_body ?? ''))).toEqual([
			{ received: true, ignored: true },
			{ received: true, ignored: true },
		]);
		expect(trigger.executions).toEqual([]);

		// The selected event still starts it.
		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'failed' });
		await trigger.waitForExecutions(1);
		expect(only(trigger)).toMatchObject({
			event_type: 'call_ended',
			call_id: call.id,
			data: { status: 'failed' },
		});
	});
});

describe('the answer to the service ("Respond")', () => {
	test('When Last Node Finishes: what the workflow produced, e.g. the tool call result', async () => {
		// The workflow of docs/triggers.md (Answering a tool call): Voice Agent Trigger (Tool Call) -> Set result = "Order {{ ... }} ships tomorrow".
		let harness: TriggerHarness | undefined;
		const setNode = (items: IDataObject[]) => ({
			result: harness?.evaluate(
				'=Order {{ $json.tool_arguments.order_id }} ships tomorrow',
				items[0],
			) as string,
		});
		const { call, trigger } = await activeTrigger(
			{ responseMode: 'lastNode' },
			{ workflowAnswer: setNode },
		);
		harness = trigger;

		await sendEvent(call.id, {
			event_type: 'tool_call',
			data: { name: 'check_order', arguments: { order_id: '1042' } },
		});

		const deliveries = await deliveriesOf(call.id);
		expect(deliveries).toHaveLength(1);
		expect(deliveries[0].status).toBe(200);
		expect(JSON.parse(deliveries[0].response_body ?? '')).toEqual({
			result: 'Order 1042 ships tomorrow',
		});
		expect(only(trigger).tool_arguments).toEqual({ order_id: '1042' });
	});

	test('Immediately: {"received": true}, as the sandbox recorded it', async () => {
		const { call, trigger } = await activeTrigger({ responseMode: 'onReceived' });

		await sendEvent(call.id, { event_type: 'tool_call' });

		const [delivery] = await deliveriesOf(call.id);
		expect(delivery.status).toBe(200);
		expect(JSON.parse(delivery.response_body ?? '')).toEqual({ received: true });
		expect(only(trigger).event_type).toBe('tool_call');
	});

	test("Using 'Respond to Webhook' Node: what that node sends", async () => {
		const { call, trigger } = await activeTrigger(
			{ responseMode: 'responseNode' },
			{ workflowAnswer: (items) => ({ tool: items[0].tool_name, answer: 'It ships tomorrow' }) },
		);

		await sendEvent(call.id, { event_type: 'tool_call' });

		const [delivery] = await deliveriesOf(call.id);
		expect(delivery.status).toBe(200);
		expect(JSON.parse(delivery.response_body ?? '')).toEqual({
			tool: 'check_order',
			answer: 'It ships tomorrow',
		});
		expect(only(trigger).event_type).toBe('tool_call');
	});
});

describe('retries of the service', () => {
	test('a delivery that failed once is retried and then starts the workflow once', async () => {
		const { call, trigger } = await activeTrigger();
		trigger.failNextRequests(1);

		const sent = await sendEvent(call.id, { event_type: 'tool_call' });
		await trigger.waitForExecutions(1);
		await settle();

		expect(sent.status).toBe(503);
		const deliveries = await deliveriesOf(call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 503],
			[2, 200],
		]);
		expect(only(trigger).event_type).toBe('tool_call');
	});
});

describe('the same event more than once', () => {
	test('a failed execution in "When Last Node Finishes" mode is answered 500, and the redelivered event starts the workflow again, whose answer the service gets', async () => {
		let runs = 0;
		const { call, trigger } = await activeTrigger(
			{ responseMode: 'lastNode' },
			{
				workflowAnswer: () => {
					runs++;
					if (runs === 1) throw new Error('The order system was down');
					return { result: 'ok' };
				},
			},
		);

		const sent = await sendEvent(call.id, { event_type: 'tool_call' });
		await trigger.waitForExecutions(2);
		await settle();

		expect(sent.status).toBe(500);
		const deliveries = await deliveriesOf(call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		// The failed run did not handle the tool call: the agent gets the answer of the run that did.
		expect(JSON.parse(deliveries[1].response_body ?? '')).toEqual({ result: 'ok' });
		expect(runs).toBe(2);
		expect(trigger.executions).toHaveLength(2);
		expect(trigger.executions[1].items[0].timestamp).toEqual(expect.stringMatching(ISO_TIMESTAMP));
	});
});

describe('events at the test URL', () => {
	test('start one test execution, after which n8n gives the agent its webhook back', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id);
		await trigger.listen();

		const sent = await sendEvent(call.id, { event_type: 'call_started' });
		await trigger.idle();

		expect(splitWebhook(sent.url).base).toBe(trigger.url('test'));
		expect(sent.status).toBe(200);
		expect(trigger.executions.map((execution) => execution.kind)).toEqual(['test']);
		expect(only(trigger)).toMatchObject({ event_type: 'call_started', call_id: call.id });
		expect((await getAgent(sandbox, agent.id)).webhook).toBe('');
		expect(trigger.listening).toBe(false);
	});

	test('a rejected delivery does not end the listening', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id);
		await trigger.listen();
		const webhook = (await getAgent(sandbox, agent.id)).webhook;

		const rejected = await post(
			trigger.url('test'),
			JSON.stringify({ event_type: 'call_started', call_id: call.id }),
		);
		const sent = await sendEvent(call.id, {
			event_type: 'tool_call',
			data: { name: 'lookup', arguments: {} },
		});
		await trigger.idle();

		expect(rejected.status).toBe(401);
		expect(sent).toMatchObject({ url: webhook, status: 200 });
		expect(only(trigger)).toMatchObject({
			event_type: 'tool_call',
			data: { name: 'lookup', arguments: {} },
		});
	});
});

describe('Include Call Details when the call cannot be read: the event runs without it, and says why', () => {
	test('GET /call hangs: answered 200 within 7 s, one execution, "call_details_skipped" says the read timed out; the service does not deliver it again', async () => {
		const { call, trigger } = await activeTrigger({ options: { includeCallDetails: true } });
		// Both attempts of the trigger's read hang for 20 s.
		await sandbox.faults({ latency_ms: 20_000, match: 'GET /call', times: 2 });

		const started = Date.now();
		const answer = await sendEvent(call.id, { event_type: 'call_ended' });
		await settle();

		expect(Date.now() - started).toBeLessThan(7_500);
		expect(answer.status).toBe(200);
		expect((await deliveriesOf(call.id)).map((delivery) => delivery.status)).toEqual([200]);
		const item = only(trigger);
		expect(item.call).toBeUndefined();
		expect(item.call_details_skipped).toBe(
			'Call details not read: Could not reach the Voice Agent API: the service did not answer within 2 seconds',
		);
		expect(trigger.executions[0].failed).toBeUndefined();
	}, 20_000);

	test('under a long rate limit: answered 200 within seconds, one execution, "call_details_skipped" names the rate limit', async () => {
		const { call, trigger } = await activeTrigger({ options: { includeCallDetails: true } });
		// One token per 30 s on GET /call: this request takes it, so the trigger's read would wait about 30 s.
		await sandbox.faults({ rate_limit_per_s: 1 / 30, match: 'GET /call' });
		await sandbox.api('GET', '/call', { query: { id: call.id } });

		const started = Date.now();
		const answer = await sendEvent(call.id, { event_type: 'call_ended' });

		expect(Date.now() - started).toBeLessThan(5_000);
		expect(answer.status).toBe(200);
		expect(only(trigger)).toMatchObject({
			event_type: 'call_ended',
			call_id: call.id,
			call_details_skipped: expect.stringMatching(
				/^Call details not read: The Voice Agent API is rate limiting this API key; retry after 3\d seconds$/,
			),
		});
		expect(warnings.messages()).toEqual([]);
	});
});
