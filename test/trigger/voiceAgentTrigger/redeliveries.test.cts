/**
 * The same event delivered more than once (the documented service delivers again whatever was not answered
 * 2xx in time; the live one only after a transport error), its dedupe key, and "Include Call Details" only
 * for calls of the trigger's agent. Events are
 * POSTed over HTTP to the node's webhook() in n8n-core's WebhookContext; see ./trigger.cts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createAgent, getAgent, placeCall, wire } from '../../support/api.cts';
import { CHECK_ORDER_TOOL } from '../../support/fixtures.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { DUPLICATE_WAIT_MS } from '../../../nodes/VoiceAgentTrigger/events';
import { post, useTriggers, type WorkflowAnswer } from './trigger.cts';
import { sleep } from '../../support/wait.cts';
import { useWarnings } from './helpers.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);
const warnings = useWarnings();

/** An agent with a call in progress, and a published trigger on it. */
async function activeTrigger(options: INodeParameters = {}, name = 'Orders') {
	const agent = await createAgent(sandbox, { name, tools: [CHECK_ORDER_TOOL] });
	const call = await placeCall(sandbox, agent);
	const trigger = await triggers.start(agent.id, { options });
	await trigger.activate();
	const webhook: string = (await getAgent(sandbox, agent.id)).webhook;
	return { agent, call, trigger, webhook };
}

/** A live call row, ended, as the live service's events carry it. */
const LIVE_CALL = {
	id: 9100,
	created_at: '2024-05-16T21:32:38.200158Z',
	updated_at: '2024-05-16T21:34:02.51Z',
	deleted_at: null,
	user_id: 7,
	agent_id: 42,
	in_progress: false,
	started_at: '2024-05-16T21:32:45.1Z',
	ended_at: '2024-05-16T21:34:02.5Z',
	time_seconds: 77.4,
	client_number: '+14155550123',
	context: '',
	twilio_sid: 'CA1',
	recording_sid: 'RE1',
	sentiment: 8,
	average_latency_ms: 640,
	user_speaks_first: false,
	disconnect_reason: 'user_hangup',
	transcript: [{ role: 'assistant', content: 'Hello' }],
};

function event(callId: string, fields: IDataObject = {}): IDataObject {
	return {
		event_type: 'call_started',
		call_id: callId,
		timestamp: '2026-11-22T10:15:30.123Z',
		data: {},
		...fields,
	};
}

describe('a redelivered event', () => {
	test('is answered 2xx and starts nothing: one execution for two deliveries of the same body', async () => {
		const { call, trigger, webhook } = await activeTrigger();
		const body = JSON.stringify(event(call.id));

		const first = await post(webhook, body);
		const again = await post(webhook, body);

		expect(first).toEqual({ status: 200, body: { received: true } });
		expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(trigger.executions).toHaveLength(1);
	});

	test('whose call details cannot be read is not refused: the first delivery runs the workflow without the call, saying why', async () => {
		const { call, trigger } = await activeTrigger({ includeCallDetails: true });
		await sandbox.faults({ error_rate: 1, status: 403, match: 'GET /call', times: 1 });

		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
		await trigger.waitForExecutions(1);
		await sleep(200);

		const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([[1, 200]]);
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.executions[0].failed).toBeUndefined();
		expect(trigger.executions[0].items[0]).toMatchObject({
			event_type: 'call_ended',
			call_id: call.id,
			call_details_skipped: expect.stringMatching(/^Call details not read: .+/),
		});
		expect(trigger.executions[0].items[0].call).toBeUndefined();
		expect(warnings.messages()).toEqual([]);
	});

	test('Respond Immediately: an event n8n could not start an execution for (answered 500) starts the workflow on its redelivery', async () => {
		const { call, trigger } = await activeTrigger();
		trigger.failNextStarts(1);

		await sandbox.control('POST', `/calls/${call.id}/events`, { event_type: 'call_started' });
		await trigger.waitForExecutions(1);
		await sleep(200);

		const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		expect(trigger.executions).toHaveLength(1);
	});

	test('is remembered per trigger: the same body at another trigger starts that one too', async () => {
		const one = await activeTrigger();
		const other = await activeTrigger({}, 'Returns');
		const body = JSON.stringify(event(one.call.id));

		await post(one.webhook, body);
		await post(other.webhook, body);

		expect(one.trigger.executions).toHaveLength(1);
		expect(other.trigger.executions).toHaveLength(1);
		// The key comes from the event alone, so every n8n process computes the same one.
		expect(one.trigger.executions[0].items[0].dedupe_key).toBe(
			other.trigger.executions[0].items[0].dedupe_key,
		);
	});
});

describe('the dedupe key', () => {
	test('tells events apart by type, call, timestamp, and for tool calls by tool and arguments', async () => {
		const { call, trigger, webhook } = await activeTrigger();
		const tool = (args: IDataObject) => ({
			event_type: 'tool_call',
			data: { name: 'check_order', arguments: args },
		});
		const bodies = [
			event(call.id),
			event(call.id, { event_type: 'call_ended' }),
			event('call_other'),
			event(call.id, { timestamp: '2026-11-22T10:15:31.000Z' }),
			event(call.id, tool({ order_id: '1' })),
			event(call.id, tool({ order_id: '2' })),
		];

		for (const body of bodies) await post(webhook, JSON.stringify(body));
		// The same tool call again, its arguments' keys in another order: a redelivery.
		const again = await post(
			webhook,
			JSON.stringify({
				data: { arguments: { order_id: '2' }, name: 'check_order' },
				timestamp: '2026-11-22T10:15:30.123Z',
				call_id: call.id,
				event_type: 'tool_call',
			}),
		);

		const keys = trigger.executions.map((execution) => execution.items[0].dedupe_key);
		expect(keys).toHaveLength(bodies.length);
		expect(new Set(keys).size).toBe(bodies.length);
		expect(again.body).toEqual({ received: true, duplicate: true });
	});
});

describe('the dedupe key of live events (no timestamp, no event id)', () => {
	test('the same event again is a repeat; another event of the same call, or the same call id with another end, is new', async () => {
		const { trigger, webhook } = await activeTrigger();
		const row = { ...LIVE_CALL, id: 9101 };
		const ended = { event: 'call_ended', call: row };
		const tool = (id: string) => ({
			event: 'tool_call',
			call: { ...row, in_progress: true },
			data: [{ id, type: 'function', function: { name: 'check_order', arguments: '{}' } }],
		});

		const answers = [];
		for (const body of [
			ended,
			{ event: 'call_ended', call: { ...row, updated_at: '2024-05-16T21:40:00Z', sentiment: 2 } },
			{ event: 'call_started', call: row },
			tool('call_a'),
			tool('call_a'),
			tool('call_b'),
			{ event: 'call_ended', call: { ...row, ended_at: '2024-06-01T08:00:00Z' } },
		])
			answers.push((await post(webhook, JSON.stringify(body))).body);

		expect(answers).toEqual([
			{ received: true },
			{ received: true, duplicate: true },
			{ received: true },
			{ received: true },
			{ received: true, duplicate: true },
			{ received: true },
			{ received: true },
		]);
		expect(trigger.executions).toHaveLength(5);
	});
});

describe('"Include Call Details" only for calls of the trigger\'s agent', () => {
	test("an event naming another agent's call: nothing is fetched, and the item says why", async () => {
		const { trigger, webhook } = await activeTrigger({ includeCallDetails: true });
		const stranger = await createAgent(sandbox, { name: 'Payroll' });
		const theirs = await placeCall(sandbox, stranger);
		await sandbox.clearRequests();

		const answer = await post(
			webhook,
			JSON.stringify(event(theirs.id, { event_type: 'call_ended', data: theirs })),
		);

		expect(answer.status).toBe(200);
		expect(await wire(sandbox)).toEqual([]);
		const item = trigger.executions[0].items[0];
		expect(item.call).toBeUndefined();
		expect(item.call_details_skipped).toBe(
			"Call details not fetched: the event's call belongs to another agent",
		);
	});

	test("an event that does not name the call's agent: nothing is fetched", async () => {
		const { call, trigger, webhook } = await activeTrigger({ includeCallDetails: true });
		await sandbox.clearRequests();

		await post(webhook, JSON.stringify(event(call.id, { event_type: 'call_ended', data: {} })));

		expect(await wire(sandbox)).toEqual([]);
		expect(trigger.executions[0].items[0]).toMatchObject({
			call_details_skipped: "Call details not fetched: the event does not name the call's agent",
		});
		expect(trigger.executions[0].items[0].call).toBeUndefined();
	});

	test('a call the service does not know (404): the event is output at once, saying why it has no details, not refused again and again', async () => {
		const { agent, trigger, webhook } = await activeTrigger({ includeCallDetails: true });

		const answer = await post(
			webhook,
			JSON.stringify(
				event('call_unknown_to_the_service', {
					event_type: 'call_ended',
					data: { agent_id: agent.id },
				}),
			),
		);

		expect(answer.status).toBe(200);
		const item = trigger.executions[0].items[0];
		expect(item.call).toBeUndefined();
		expect(item.call_details_skipped).toBe(
			'Call details not found: the service does not know this call',
		);
	});

	test("an event claiming the agent for another agent's call: the call fetched is not output", async () => {
		const { agent, trigger, webhook } = await activeTrigger({ includeCallDetails: true });
		const stranger = await createAgent(sandbox, { name: 'Payroll' });
		const theirs = await placeCall(sandbox, stranger);
		await sandbox.clearRequests();

		await post(
			webhook,
			JSON.stringify(
				event(theirs.id, { event_type: 'call_ended', data: { ...theirs, agent_id: agent.id } }),
			),
		);

		const item = trigger.executions[0].items[0];
		expect(item.call).toBeUndefined();
		expect(item.call_details_skipped).toBe(
			'Call details not output: the call belongs to another agent',
		);
		// Checked after the fetch, since the event's own claim cannot be trusted.
		expect((await wire(sandbox)).map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /call',
		]);
	});
});

/** A promise settled from outside: a workflow run that ends when the test says so. */
function gate<T>() {
	let open!: (value: T) => void;
	const opened = new Promise<T>((resolve) => (open = resolve));
	return { opened, open };
}

describe.each([
	['When Last Node Finishes', 'lastNode'],
	["Using 'Respond to Webhook' Node", 'responseNode'],
])('Respond: %s, an event is handled once its run answered 2xx', (_name, responseMode) => {
	async function triggerWith(workflowAnswer: WorkflowAnswer) {
		const agent = await createAgent(sandbox, { name: 'Orders', tools: [CHECK_ORDER_TOOL] });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id, { responseMode }, { workflowAnswer });
		await trigger.activate();
		const webhook: string = (await getAgent(sandbox, agent.id)).webhook;
		return { call, trigger, webhook };
	}

	test("a run that failed is not the event's end: the service's redelivery starts the workflow again, and its answer goes back", async () => {
		let runs = 0;
		const { call, trigger } = await triggerWith(() => {
			runs++;
			if (runs === 1) throw new Error('The CRM was down');
			return { logged: true };
		});

		await sandbox.control('POST', `/calls/${call.id}/events`, { event_type: 'call_started' });
		await trigger.waitForExecutions(2);
		await sleep(200);

		const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		expect(JSON.parse(deliveries[1].response_body ?? '')).toEqual({ logged: true });
		expect(runs).toBe(2);
		expect(trigger.executions.map((execution) => execution.items[0].dedupe_key)).toEqual([
			trigger.executions[0].items[0].dedupe_key,
			trigger.executions[0].items[0].dedupe_key,
		]);
	});

	test('a run that succeeded: a redelivery starts nothing', async () => {
		let runs = 0;
		const { call, trigger, webhook } = await triggerWith(() => {
			runs++;
			return { logged: true };
		});
		const body = JSON.stringify(event(call.id));

		const first = await post(webhook, body);
		const again = await post(webhook, body);

		expect(first).toEqual({ status: 200, body: { logged: true } });
		expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(runs).toBe(1);
		expect(trigger.executions).toHaveLength(1);
	});

	test("a redelivered tool call whose run succeeded gets the run's answer again, and starts nothing", async () => {
		let runs = 0;
		const { call, trigger, webhook } = await triggerWith((items) => {
			runs++;
			return {
				result: `Order ${String((items[0].tool_arguments as IDataObject).order_id)} ships tomorrow`,
			};
		});
		const body = JSON.stringify(
			event(call.id, {
				event_type: 'tool_call',
				data: { name: 'check_order', arguments: { order_id: '1042' } },
			}),
		);

		const first = await post(webhook, body);
		const again = await post(webhook, body);

		expect(first).toEqual({ status: 200, body: { result: 'Order 1042 ships tomorrow' } });
		expect(again).toEqual(first);
		expect(runs).toBe(1);
		expect(trigger.executions).toHaveLength(1);
	});

	test('a redelivery while the first run is still under way waits for it and starts nothing: once the run succeeded, 200', async () => {
		const run = gate<IDataObject>();
		const { call, trigger, webhook } = await triggerWith(() => run.opened);
		const body = JSON.stringify(event(call.id));

		const first = post(webhook, body);
		await trigger.waitForExecutions(1);
		const during = post(webhook, body);
		await sleep(300);
		run.open({ logged: true });
		const answered = await first;
		const after = await post(webhook, body);

		expect(answered).toEqual({ status: 200, body: { logged: true } });
		expect(await during).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(after).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(trigger.executions).toHaveLength(1);
		expect(warnings.messages()).toEqual([
			'Voice Agent Trigger answered 200 (duplicate) and started no execution',
			'Voice Agent Trigger answered 200 (duplicate) and started no execution',
		]);
	});

	test("a tool call delivered again while its run is under way gets that run's answer once it comes", async () => {
		const run = gate<IDataObject>();
		const { call, trigger, webhook } = await triggerWith(() => run.opened);
		const body = JSON.stringify(
			event(call.id, {
				event_type: 'tool_call',
				data: { name: 'check_order', arguments: { order_id: '1042' } },
			}),
		);

		const first = post(webhook, body);
		await trigger.waitForExecutions(1);
		const during = post(webhook, body);
		await sleep(300);
		run.open({ result: 'Order 1042 ships tomorrow' });

		expect(await first).toEqual({ status: 200, body: { result: 'Order 1042 ships tomorrow' } });
		expect(await during).toEqual(await first);
		expect(trigger.executions).toHaveLength(1);
	});

	test(`a redelivery whose first run is still under way after ${DUPLICATE_WAIT_MS / 1000} s is answered 200 and starts nothing`, async () => {
		const run = gate<IDataObject>();
		const { call, trigger, webhook } = await triggerWith(() => run.opened);
		const body = JSON.stringify(event(call.id));

		const first = post(webhook, body);
		await trigger.waitForExecutions(1);
		const started = Date.now();
		const during = await post(webhook, body);
		const waited = Date.now() - started;
		run.open({ logged: true });

		expect(during).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(waited).toBeGreaterThanOrEqual(DUPLICATE_WAIT_MS - 50);
		expect(waited).toBeLessThan(DUPLICATE_WAIT_MS + 2_000);
		expect(await first).toEqual({ status: 200, body: { logged: true } });
		expect(trigger.executions).toHaveLength(1);
		expect(warnings.messages()).toEqual([
			'Voice Agent Trigger answered 200 (in-flight) and started no execution',
		]);
	}, 15_000);

	test('a run that succeeded after the sender stopped waiting still counts: the redelivery starts nothing', async () => {
		const run = gate<IDataObject>();
		let runs = 0;
		const { call, trigger, webhook } = await triggerWith(() => {
			runs++;
			return run.opened;
		});
		const body = JSON.stringify(event(call.id));

		// The service gives up on the first delivery (its 10 s timeout, here 300 ms) while the run goes on.
		const first = fetch(webhook, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body,
			signal: AbortSignal.timeout(300),
		});
		await trigger.waitForExecutions(1);
		await expect(first).rejects.toThrow();
		run.open({ logged: true });
		await sleep(50);
		const again = await post(webhook, body);

		expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(runs).toBe(1);
	});

	test('a redelivery while the first run is under way, which then fails: the waiting redelivery runs the event, and gets its answer', async () => {
		const run = gate<IDataObject>();
		let runs = 0;
		const { call, trigger, webhook } = await triggerWith(async () => {
			runs++;
			if (runs === 1) {
				await run.opened;
				throw new Error('The CRM was down');
			}
			return { logged: true };
		});
		const body = JSON.stringify(event(call.id));

		const first = post(webhook, body);
		await trigger.waitForExecutions(1);
		const during = post(webhook, body);
		await sleep(300);
		run.open({});

		expect((await first).status).toBe(500);
		expect(await during).toEqual({ status: 200, body: { logged: true } });
		expect(runs).toBe(2);
		expect(trigger.executions).toHaveLength(2);
	});
});
