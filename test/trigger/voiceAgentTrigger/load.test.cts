/**
 * The Voice Agent Trigger under more events than one n8n process answers in time (nodes/VoiceAgentTrigger/
 * load.ts): past its bound of deliveries in flight it refuses at once (503 with Retry-After), a delivery
 * whose sender stopped waiting starts nothing, and the detail reads of a burst go a few at a time. The
 * bounds are per process: the module state behind them is shared by every trigger of the process.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_DELIVERIES_IN_FLIGHT, MAX_DETAIL_READS } from '../../../nodes/VoiceAgentTrigger/load';
import { createAgent, getAgent, placeCall } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';
import { post, useTriggers } from './trigger.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const triggers = useTriggers(sandbox);

const JSON_TYPE = { 'content-type': 'application/json' };

function callEnded(callId: string, agentId: string, second = 0): string {
	return JSON.stringify({
		event_type: 'call_ended',
		call_id: callId,
		timestamp: `2026-11-26T10:00:${String(second).padStart(2, '0')}.000Z`,
		data: { agent_id: agentId },
	});
}

describe('past the bound of deliveries in flight in the process', () => {
	test('a delivery is refused at once with 503 and Retry-After, starting nothing; once the runs end, its redelivery runs', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		let open!: () => void;
		const gate = new Promise<void>((resolve) => {
			open = resolve;
		});
		const trigger = await triggers.start(
			agent.id,
			{ responseMode: 'lastNode', events: ['call_ended'] },
			{ workflowAnswer: async () => (await gate, { done: true }) as IDataObject },
		);
		await trigger.activate();
		const url: string = (await getAgent(sandbox, agent.id)).webhook;
		const held = Array.from({ length: MAX_DELIVERIES_IN_FLIGHT }, (_, index) =>
			post(url, callEnded(`call_held_${index}`, agent.id)),
		);
		await trigger.waitForExecutions(MAX_DELIVERIES_IN_FLIGHT);

		const extra = callEnded('call_extra', agent.id);
		const refused = await Promise.race([
			post(url, extra),
			trigger
				.waitForExecutions(MAX_DELIVERIES_IN_FLIGHT + 1, 3_000)
				.then(() => 'a run started' as const),
		]);
		const response = await fetch(url, { method: 'POST', body: extra, headers: JSON_TYPE });

		expect(refused).toEqual({
			status: 503,
			body: {
				error: 'Service Unavailable',
				message: 'Too many events are being handled; deliver this one again later',
			},
		});
		expect(response.headers.get('retry-after')).toBe('5');
		expect(trigger.executions).toHaveLength(MAX_DELIVERIES_IN_FLIGHT);

		open();
		expect((await Promise.all(held)).map((answer) => answer.status)).toEqual(
			Array(MAX_DELIVERIES_IN_FLIGHT).fill(200),
		);
		expect(await post(url, extra)).toEqual({ status: 200, body: { done: true } });
		expect(trigger.executions).toHaveLength(MAX_DELIVERIES_IN_FLIGHT + 1);
	});
});

describe('Include Call Details in a burst', () => {
	test(`GET /call goes at most ${MAX_DETAIL_READS} at a time in the process, and every event is handled`, async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id, {
			events: ['call_ended'],
			options: { includeCallDetails: true },
		});
		await trigger.activate();
		const url: string = (await getAgent(sandbox, agent.id)).webhook;
		await sandbox.faults({ match: 'GET /call', latency_ms: 100 });
		await sandbox.control('DELETE', '/traffic');

		// One call, 30 distinct events of it (other timestamps): 30 detail reads wanted at once.
		const answers = await Promise.all(
			Array.from({ length: 30 }, (_, second) => post(url, callEnded(call.id, agent.id, second))),
		);

		expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
		expect(trigger.executions).toHaveLength(30);
		const traffic = (await sandbox.control('GET', '/traffic')).body;
		expect(traffic.api_requests).toBe(30);
		expect(traffic.max_in_flight).toBeLessThanOrEqual(MAX_DETAIL_READS);
	});

	test('a delivery whose sender stopped waiting while its details were read starts nothing; the redelivery runs once', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id, {
			events: ['call_ended'],
			options: { includeCallDetails: true },
		});
		await trigger.activate();
		const url: string = (await getAgent(sandbox, agent.id)).webhook;
		const body = callEnded(call.id, agent.id);
		await sandbox.faults({ match: 'GET /call', latency_ms: 600, times: 1 });

		const gone = await fetch(url, {
			method: 'POST',
			body,
			headers: JSON_TYPE,
			signal: AbortSignal.timeout(150),
		}).then(
			() => 'answered',
			(error: Error) => error.name,
		);
		await sleep(900);
		await trigger.idle();

		expect(gone).toBe('TimeoutError');
		expect(trigger.executions).toEqual([]);
		expect(await post(url, body)).toEqual({ status: 200, body: { received: true } });
		expect(trigger.executions).toHaveLength(1);
	});
});
