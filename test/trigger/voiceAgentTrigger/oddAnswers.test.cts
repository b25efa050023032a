/**
 * The Voice Agent Trigger with Include Call Details when `GET /call` answers 200 with something that is not
 * the call (sandbox variants: `null`, an array, an HTML page, truncated JSON, missing or mistyped fields).
 * The answer is not used: the event runs at once without the call, and the item says why. Nothing waits
 * for a redelivery, which a sender may never make.
 */
import type { OddAnswer } from '../../../sandbox/variants.js';
import { createAgent, getAgent, getCall, placeCall } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';
import { useWarnings } from './helpers.cts';
import { post, useTriggers } from './trigger.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);
const warnings = useWarnings();

const ODD_ANSWERS: Array<Exclude<OddAnswer, 'normal'>> = [
	'null',
	'array',
	'html',
	'truncated',
	'missing_fields',
	'mistyped_fields',
];

async function detailsTrigger() {
	const agent = await createAgent(sandbox, { name: 'Orders' });
	const call = await placeCall(sandbox, agent);
	const trigger = await triggers.start(agent.id, { options: { includeCallDetails: true } });
	await trigger.activate();
	const webhook: string = (await getAgent(sandbox, agent.id)).webhook;
	return { agent, call, trigger, webhook };
}

describe('GET /call answers 200 without the call', () => {
	test.each(ODD_ANSWERS)(
		'%s: the delivery is answered 200 and runs the workflow once, without the call, saying why',
		async (odd) => {
			const { call, trigger } = await detailsTrigger();
			await sandbox.variants({ call_answer: odd, odd_answers_times: 1 });

			await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
			await trigger.waitForExecutions(1);
			await sleep(200);

			const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
			expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([[1, 200]]);
			expect(trigger.executions).toHaveLength(1);
			expect(trigger.executions[0].failed).toBeUndefined();
			const item = trigger.executions[0].items[0];
			expect(item.call).toBeUndefined();
			expect(item.call_details_skipped).toMatch(
				new RegExp(
					`^Call details not read: GET /call answered 200 without the call "${call.id}" \\(`,
				),
			);
			expect(warnings.messages()).toEqual([]);
		},
	);

	test('as long as it lasts, each new event runs without the call and a repeat starts nothing; once the service answers properly, new events have the call', async () => {
		const { call, trigger, webhook } = await detailsTrigger();
		await sandbox.variants({ call_answer: 'null' });
		const body = (second: number) =>
			JSON.stringify({
				event_type: 'call_ended',
				call_id: call.id,
				timestamp: `2026-11-22T10:15:3${second}.123Z`,
				data: { agent_id: call.agent_id },
			});

		const during = [await post(webhook, body(0)), await post(webhook, body(0))];
		await sandbox.variants({});
		const after = await post(webhook, body(1));

		expect(during).toEqual([
			{ status: 200, body: { received: true } },
			{ status: 200, body: { received: true, duplicate: true } },
		]);
		expect(after).toEqual({ status: 200, body: { received: true } });
		const items = trigger.executions.map((execution) => execution.items[0]);
		expect(items).toHaveLength(2);
		expect(items[0].call).toBeUndefined();
		expect(items[1].call).toEqual(await getCall(sandbox, call.id));
	});
});
