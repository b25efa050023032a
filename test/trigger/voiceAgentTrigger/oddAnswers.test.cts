/**
 * The Voice Agent Trigger with Include Call Details when `GET /call` answers 200 with something that is not
 * the call (sandbox variants: `null`, an array, an HTML page, truncated JSON, missing or mistyped fields).
 * The event is claimed before the read: whatever the read gives, the delivery ends with the claim let go,
 * refused with a status the service retries, so the redelivery is handled once the call can be read.
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
		'%s: the delivery is refused with 503 and no execution; the redelivery runs the workflow once, with the call',
		async (odd) => {
			const { call, trigger } = await detailsTrigger();
			await sandbox.variants({ call_answer: odd, odd_answers_times: 1 });

			await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
			await trigger.waitForExecutions(1);
			await sleep(200);

			const deliveries = (await sandbox.deliveries()).filter((d) => d.call_id === call.id);
			expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
				[1, 503],
				[2, 200],
			]);
			expect(trigger.executions).toHaveLength(1);
			expect(trigger.executions[0].failed).toBeUndefined();
			expect(trigger.executions[0].items[0].call).toEqual(await getCall(sandbox, call.id));
			expect(warnings.messages()).toEqual([
				expect.stringMatching(
					/^Voice Agent Trigger answered 503 \(details-unavailable\) and started no execution: GET \/call answered 200 without the call/,
				),
			]);
		},
	);

	test('as long as it lasts, every delivery is refused with 503, never 409: no delivery is left in flight', async () => {
		const { call, trigger, webhook } = await detailsTrigger();
		await sandbox.variants({ call_answer: 'null' });
		const body = JSON.stringify({
			event_type: 'call_ended',
			call_id: call.id,
			timestamp: '2026-11-22T10:15:30.123Z',
			data: { agent_id: call.agent_id },
		});

		const refused = [await post(webhook, body), await post(webhook, body)];
		await sandbox.variants({});
		const accepted = await post(webhook, body);

		expect(refused.map((answer) => answer.status)).toEqual([503, 503]);
		expect(accepted).toEqual({ status: 200, body: { received: true } });
		expect(trigger.executions).toHaveLength(1);
	});
});
