/**
 * Events in the live service's shape, `{ event, call, data? }`, POSTed to the Voice Agent Trigger over HTTP
 * (received by the node's webhook() in n8n-core's WebhookContext, see ./trigger.cts): one item shape for
 * both services, the call each event carries used as it is (no GET /call), tool calls and actions, and what
 * a sender that never delivers an event again needs: every authentic event answered 2xx and run.
 */
import type { IDataObject } from 'n8n-workflow';

import { createAgent, getAgent, wire } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { post, useTriggers } from './trigger.cts';
import { liveCallRow, liveToolCall } from './helpers.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const triggers = useTriggers(sandbox);

const DEDUPE_KEY = /^[0-9a-f]{32}$/;

async function activeTrigger(parameters: IDataObject = {}) {
	const agent = await createAgent(sandbox, { name: 'Orders' });
	const trigger = await triggers.start(agent.id, {
		events: ['call_started', 'call_ended', 'tool_call', 'action'],
		...parameters,
	});
	await trigger.activate();
	const webhook: string = (await getAgent(sandbox, agent.id)).webhook;
	await sandbox.clearRequests();
	return { trigger, webhook };
}

const send = (webhook: string, body: unknown) => post(webhook, JSON.stringify(body));

describe('live events: one item, the call they carry under "call"', () => {
	test('call_ended: event_type, call_id, timestamp (the end), data, dedupe_key and the call, decoded', async () => {
		const { trigger, webhook } = await activeTrigger();
		const row = liveCallRow({ id: 6001 });

		const answer = await send(webhook, { event: 'call_ended', call: row });

		expect(answer).toEqual({ status: 200, body: { received: true } });
		expect(trigger.executions).toHaveLength(1);
		const item = trigger.executions[0].items[0];
		expect(Object.keys(item).sort()).toEqual([
			'call',
			'call_id',
			'data',
			'dedupe_key',
			'event_type',
			'timestamp',
		]);
		expect(item).toMatchObject({
			event_type: 'call_ended',
			call_id: '6001',
			timestamp: row.ended_at,
			data: {},
			dedupe_key: expect.stringMatching(DEDUPE_KEY),
			call: {
				id: '6001',
				agent_id: String(row.agent_id),
				status: 'completed',
				to: row.client_number,
				duration: row.time_seconds,
				ended_at: row.ended_at,
				transcript: [
					{ speaker: 'agent', text: 'Hello, this is Orders' },
					{ speaker: 'customer', text: 'Where is my order?' },
				],
			},
		});
		// The agent's prompt (the transcript's system message) is not part of the conversation.
		expect(JSON.stringify(item)).not.toContain('You are the order desk');
	});

	test('Include Call Details uses the call the event carries: no GET /call at all; Transcript Format applies to it', async () => {
		const { trigger, webhook } = await activeTrigger({
			options: { includeCallDetails: true, transcriptFormat: 'text' },
		});

		await send(webhook, { event: 'call_ended', call: liveCallRow({ id: 6002 }) });

		expect(await wire(sandbox)).toEqual([]);
		const item = trigger.executions[0].items[0];
		expect(item.call_details_skipped).toBeUndefined();
		expect(item.call).toMatchObject({
			id: '6002',
			transcript_text: 'Agent: Hello, this is Orders\nCustomer: Where is my order?',
		});
		expect((item.call as IDataObject).transcript).toBeUndefined();
	});

	test('call_started: the call in progress, stamped with its start', async () => {
		const { trigger, webhook } = await activeTrigger();
		const row = liveCallRow({ id: 6003 }, 'connected');

		await send(webhook, { event: 'call_started', call: row });

		expect(trigger.executions[0].items[0]).toMatchObject({
			event_type: 'call_started',
			call_id: '6003',
			timestamp: row.started_at,
			call: { id: '6003', status: 'in_progress', ended_at: null, duration: null },
		});
	});

	test('tool_call: the OpenAI tool calls, the first as tool_name / tool_arguments / tool_call_id, all as tool_calls', async () => {
		const { trigger, webhook } = await activeTrigger();
		const data = [
			liveToolCall('call_Ab1', 'check_order', '{"order_id":"1042"}'),
			liveToolCall('call_Cd2', 'note', 'the customer sounds upset'),
		];

		await send(webhook, { event: 'tool_call', call: liveCallRow({ id: 6004 }, 'connected'), data });

		const item = trigger.executions[0].items[0];
		expect(item).toMatchObject({
			event_type: 'tool_call',
			call_id: '6004',
			timestamp: null,
			data,
			tool_name: 'check_order',
			tool_arguments: { order_id: '1042' },
			tool_call_id: 'call_Ab1',
			tool_calls: [
				{ id: 'call_Ab1', name: 'check_order', arguments: { order_id: '1042' } },
				{ id: 'call_Cd2', name: 'note', arguments: 'the customer sounds upset' },
			],
		});
		expect(trigger.evaluate('=Order {{ $json.tool_arguments.order_id }}', item)).toBe('Order 1042');
	});

	test('action: selectable, one tool call', async () => {
		const { trigger, webhook } = await activeTrigger();

		await send(webhook, {
			event: 'action',
			call: liveCallRow({ id: 6005 }, 'connected'),
			data: liveToolCall('call_Ef3', 'forward_to_sales', '{}'),
		});

		expect(trigger.executions[0].items[0]).toMatchObject({
			event_type: 'action',
			tool_name: 'forward_to_sales',
			tool_arguments: {},
			tool_call_id: 'call_Ef3',
		});
	});

	test('an action the trigger does not listen for is acknowledged with 200 and starts nothing', async () => {
		const { trigger, webhook } = await activeTrigger({ events: ['call_ended'] });

		const answer = await send(webhook, {
			event: 'action',
			call: liveCallRow({ id: 6006 }, 'connected'),
			data: liveToolCall('call_Gh4', 'forward_to_sales', '{}'),
		});

		expect(answer).toEqual({ status: 200, body: { received: true, ignored: true } });
		expect(trigger.executions).toEqual([]);
	});

	test('When Last Node Finishes: the workflow answers a tool call', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(
			agent.id,
			{ responseMode: 'lastNode' },
			{ workflowAnswer: (items) => ({ result: `Order ${String(items[0].tool_call_id)} ok` }) },
		);
		await trigger.activate();
		const webhook: string = (await getAgent(sandbox, agent.id)).webhook;

		const answer = await send(webhook, {
			event: 'tool_call',
			call: liveCallRow({ id: 6007 }, 'connected'),
			data: [liveToolCall('call_Ij5', 'check_order', '{}')],
		});

		expect(answer).toEqual({ status: 200, body: { result: 'Order call_Ij5 ok' } });
	});
});

describe('order and bodies, as a sender that never delivers again sends them', () => {
	test("call_ended before its call_started: each runs, in the order they came; the same call's events keep their own keys", async () => {
		const { trigger, webhook } = await activeTrigger();
		const ended = liveCallRow({ id: 6101 });

		const answers = [
			await send(webhook, { event: 'call_ended', call: ended }),
			await send(webhook, { event: 'call_started', call: liveCallRow({ id: 6101 }, 'connected') }),
		];

		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
		const items = trigger.executions.map((execution) => execution.items[0]);
		expect(items.map((item) => item.event_type)).toEqual(['call_ended', 'call_started']);
		expect(items[0].dedupe_key).not.toBe(items[1].dedupe_key);
	});

	test.each([
		['an empty body (a retry after a transport error)', '', 'application/json'],
		['a body cut short, sent as text', '{"event":"call_ended","call":{"id":61', 'text/plain'],
		['a call without the event name', JSON.stringify({ call: liveCallRow() }), 'application/json'],
	])('%s: 400, nothing runs', async (_name, body, contentType) => {
		const { trigger, webhook } = await activeTrigger();

		const answer = await post(webhook, body, contentType);

		expect(answer.status).toBe(400);
		expect(trigger.executions).toEqual([]);
	});

	test('the same event twice (a response lost after the trigger acted): the second is answered 200 and starts nothing', async () => {
		const { trigger, webhook } = await activeTrigger();
		const body = { event: 'call_ended', call: liveCallRow({ id: 6102 }) };

		const answers = [await send(webhook, body), await send(webhook, body)];

		expect(answers).toEqual([
			{ status: 200, body: { received: true } },
			{ status: 200, body: { received: true, duplicate: true } },
		]);
		expect(trigger.executions).toHaveLength(1);
	});

	test('the same event twice at the same moment: one run, both answered 200', async () => {
		const { trigger, webhook } = await activeTrigger();
		const body = { event: 'call_ended', call: liveCallRow({ id: 6103 }) };

		const answers = await Promise.all([send(webhook, body), send(webhook, body)]);

		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
		expect(trigger.executions).toHaveLength(1);
	});

	test('without the token: 401, nothing runs', async () => {
		const { trigger } = await activeTrigger();

		const answer = await send(trigger.url('production'), {
			event: 'call_ended',
			call: liveCallRow({ id: 6104 }),
		});

		expect(answer.status).toBe(401);
		expect(trigger.executions).toEqual([]);
	});
});
