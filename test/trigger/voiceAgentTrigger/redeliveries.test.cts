/**
 * The same event delivered more than once (the service delivers again whatever was not answered 2xx in
 * time), its dedupe key, and "Include Call Details" only for calls of the trigger's agent. Events are
 * POSTed over HTTP to the node's webhook() in n8n-core's WebhookContext; see ./trigger.cts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createAgent, getAgent, getCall, placeCall, wire } from '../../support/api.cts';
import { CHECK_ORDER_TOOL } from '../../support/fixtures.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { post, useTriggers } from './trigger.cts';
import { sleep } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);

/** An agent with a call in progress, and a published trigger on it. */
async function activeTrigger(options: INodeParameters = {}, name = 'Orders') {
	const agent = await createAgent(sandbox, { name, tools: [CHECK_ORDER_TOOL] });
	const call = await placeCall(sandbox, agent);
	const trigger = await triggers.start(agent.id, { options });
	await trigger.activate();
	const webhook: string = (await getAgent(sandbox, agent.id)).webhook;
	return { agent, call, trigger, webhook };
}

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

	test('by the service after n8n answered too late (a 500 after the run started): the workflow ran once', async () => {
		let runs = 0;
		const agent = await createAgent(sandbox, { name: 'Orders', tools: [CHECK_ORDER_TOOL] });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(
			agent.id,
			{ responseMode: 'lastNode' },
			{
				workflowAnswer: () => {
					runs++;
					throw new Error('Call → Create placed the follow-up, then a later node failed');
				},
			},
		);
		await trigger.activate();

		await sandbox.control('POST', `/calls/${call.id}/events`, { event_type: 'call_started' });
		await sleep(300);

		const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		expect(runs).toBe(1);
		expect(trigger.executions).toHaveLength(1);
	});

	test('whose call details could not be had (answered 500, nothing started) starts the workflow once when it comes again', async () => {
		const { call, trigger } = await activeTrigger({ includeCallDetails: true });
		await sandbox.faults({ error_rate: 1, status: 403, match: 'GET /call', times: 1 });

		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
		await trigger.waitForExecutions(1);
		await sleep(200);

		const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
		expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.executions[0].items[0].call).toEqual(await getCall(sandbox, call.id));
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
