/**
 * The Voice Agent Trigger fed by the live service's own sender, as the sandbox's live profile plays it:
 * `{ event, call, data? }`, no timeout, any answer ends a delivery (a non-2xx drops the event for good), only
 * a transport error is retried (for a minute, perhaps with an empty body), a call's events in no set order.
 * Each call's events must run once, in every order, without any delivery again.
 */
import type { IDataObject } from 'n8n-workflow';

import { CHECK_ORDER_TOOL } from '../../support/fixtures.cts';
import { useSandbox, type TestSandbox } from '../../support/sandbox.cts';
import { sleep, waitFor } from '../../support/wait.cts';
import { liveAgent, liveCall } from '../../sandbox/liveHelpers.cts';
import { rl } from '../../support/n8n.cts';
import { useTriggers, type TriggerHarness } from './trigger.cts';

const sandbox = useSandbox({
	profile: 'live',
	ringMs: 50,
	callDurationMs: 400,
	webhookRetryDelayMs: 50,
});
const triggers = useTriggers(sandbox);

const FORWARD_ACTION = {
	name: 'forward_to_sales',
	instructions: 'Forward when the caller wants to buy',
	forwarding_number: '+14155550199',
};

/** A live agent (with a tool and an action when asked) and a published trigger on it. */
async function liveTrigger(
	parameters: IDataObject = {},
	agentFields: IDataObject = {},
): Promise<{ agent: any; trigger: TriggerHarness }> {
	const agent = await liveAgent(sandbox, { name: 'Orders', ...agentFields });
	const trigger = await triggers.start(String(agent.id), {
		agent: rl(String(agent.id)),
		events: ['call_started', 'call_ended', 'tool_call', 'action'],
		...parameters,
	});
	await trigger.activate();
	return { agent, trigger };
}

async function deliveries(box: TestSandbox = sandbox) {
	return await box.deliveries();
}

const isCallEnded = (body: unknown) => (body as IDataObject | undefined)?.event === 'call_ended';

const itemsOf = (trigger: TriggerHarness) =>
	trigger.executions.map((execution) => execution.items[0]);

/** Waits until every event of these calls was sent and its attempts ended (no retry pending). */
async function waitForDeliveries(count: number) {
	return await waitFor(
		() => `${count} deliveries`,
		async () => {
			const all = await deliveries();
			return all.length >= count ? all : undefined;
		},
		15_000,
	);
}

describe('calls one after another', () => {
	test('20 calls, each connected and ended: every call_started and call_ended runs once, every delivery answered 200', async () => {
		const { agent, trigger } = await liveTrigger({}, {});
		const calls = [];
		for (let index = 0; index < 20; index++) {
			const call = await liveCall(sandbox, agent, {
				to: `+1415555${String(index).padStart(4, '1')}`,
			});
			calls.push(call);
			await waitFor(
				`call ${call.id} ended`,
				() =>
					itemsOf(trigger).find(
						(item) => item.event_type === 'call_ended' && item.call_id === String(call.id),
					),
				10_000,
			);
		}
		await sleep(200);

		const attempts = await deliveries();
		expect(attempts).toHaveLength(40);
		expect(attempts.every((attempt) => attempt.status === 200)).toBe(true);
		const ran = itemsOf(trigger).map(
			(item) => `${String(item.event_type)} ${String(item.call_id)}`,
		);
		expect(ran.sort()).toEqual(
			calls.flatMap((call) => [`call_ended ${call.id}`, `call_started ${call.id}`]).sort(),
		);
		for (const item of itemsOf(trigger).filter((each) => each.event_type === 'call_ended'))
			expect(item.call).toMatchObject({ id: item.call_id, status: 'completed' });
	});
});

describe('order and repeats', () => {
	test('call_ended before its call_started: both run, in the order they came', async () => {
		const { agent, trigger } = await liveTrigger();
		await sandbox.live({ event_delay_ms: { call_started: 800 } });

		const call = await liveCall(sandbox, agent);
		await trigger.waitForExecutions(2, 5_000);

		expect(itemsOf(trigger).map((item) => item.event_type)).toEqual(['call_ended', 'call_started']);
		expect(itemsOf(trigger).every((item) => item.call_id === String(call.id))).toBe(true);
		expect((await deliveries()).map((attempt) => attempt.status)).toEqual([200, 200]);
	});

	test('tool_call and action from the sender: each runs with its tool name and parsed arguments', async () => {
		const { agent, trigger } = await liveTrigger(
			{ events: ['tool_call', 'action'] },
			{ tools: [CHECK_ORDER_TOOL], actions: [FORWARD_ACTION] },
		);

		await liveCall(sandbox, agent);
		await trigger.waitForExecutions(2, 5_000);
		await waitForDeliveries(4);

		const byType = Object.fromEntries(itemsOf(trigger).map((item) => [item.event_type, item]));
		expect(byType.tool_call).toMatchObject({
			tool_name: 'check_order',
			tool_arguments: { order_id: expect.any(String) },
			tool_call_id: expect.stringMatching(/^call_/),
		});
		expect(byType.action).toMatchObject({ tool_name: 'forward_to_sales', tool_arguments: {} });
		expect((await deliveries()).map((attempt) => attempt.status)).toEqual([200, 200, 200, 200]);
	});

	test('Include Call Details: the call the event carries, no GET /call', async () => {
		const { agent, trigger } = await liveTrigger({
			events: ['call_ended'],
			options: { includeCallDetails: true, transcriptFormat: 'both' },
		});
		await sandbox.clearRequests();

		const call = await liveCall(sandbox, agent);
		await trigger.waitForExecutions(1, 5_000);

		const requests = (await sandbox.requests()).map(
			(request) => `${request.method} ${request.path}`,
		);
		expect(requests).toEqual(['POST /v1/call']);
		const [item] = itemsOf(trigger);
		expect(item.call).toMatchObject({
			id: String(call.id),
			status: 'completed',
			transcript: expect.arrayContaining([expect.objectContaining({ speaker: 'agent' })]),
			transcript_text: expect.stringMatching(/^Agent: /),
		});
	});
});

describe('a transport error: the one thing the sender retries', () => {
	test('the answer lost after the trigger acted: the retry carries the same event, answered 200, starting nothing', async () => {
		const { agent, trigger } = await liveTrigger({ events: ['call_ended'] });
		trigger.dropNextRequest('after', isCallEnded);

		const call = await liveCall(sandbox, agent);
		await waitForDeliveries(3);
		await trigger.idle();

		const attempts = (await deliveries()).filter((attempt) => attempt.event_type === 'call_ended');
		expect(attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
			[1, null],
			[2, 200],
		]);
		expect(JSON.parse(attempts[1].response_body ?? '')).toEqual({
			received: true,
			duplicate: true,
		});
		expect(itemsOf(trigger)).toHaveLength(1);
		expect(itemsOf(trigger)[0]).toMatchObject({ call_id: String(call.id) });
	});

	test('the connection broken before the trigger saw it: the retry runs the event, once', async () => {
		const { agent, trigger } = await liveTrigger({ events: ['call_ended'] });
		trigger.dropNextRequest('before', isCallEnded);

		await liveCall(sandbox, agent);
		await waitForDeliveries(3);

		const attempts = (await deliveries()).filter((attempt) => attempt.event_type === 'call_ended');
		expect(attempts.map((attempt) => attempt.status)).toEqual([null, 200]);
		expect(itemsOf(trigger)).toHaveLength(1);
	});

	test('a retry with an empty body is answered 400 and runs nothing: the event ran once, from the first attempt', async () => {
		const { agent, trigger } = await liveTrigger({ events: ['call_ended'] });
		await sandbox.live({ empty_retry_body: true });
		trigger.dropNextRequest('after', isCallEnded);

		await liveCall(sandbox, agent);
		await waitForDeliveries(3);

		const attempts = (await deliveries()).filter((attempt) => attempt.event_type === 'call_ended');
		expect(attempts.map((attempt) => [attempt.status, attempt.empty_body])).toEqual([
			[null, false],
			[400, true],
		]);
		expect(itemsOf(trigger)).toHaveLength(1);
	});
});
