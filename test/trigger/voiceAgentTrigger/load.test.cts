/**
 * The Voice Agent Trigger under more events than one n8n process answers at once: nothing is refused.
 * However many deliveries are in flight, each new event runs; a delivery whose sender stopped waiting still
 * runs (the sender may never deliver it again); the detail reads of a burst go a few at a time, and a read
 * whose turn does not come within seconds is skipped, the event running without the call. The bound is per
 * process: the module state behind it is shared by every trigger of the process.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_DETAIL_READS, MAX_DETAIL_WAIT_MS } from '../../../nodes/VoiceAgentTrigger/callDetails';
import { createAgent, getAgent, placeCall } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';
import { post, useTriggers } from './trigger.cts';
import { useWarnings } from './helpers.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const triggers = useTriggers(sandbox);
const warnings = useWarnings();

const JSON_TYPE = { 'content-type': 'application/json' };
/** What the trigger refused, before this version, past this many deliveries in flight in a process. */
const FORMER_BOUND = 48;

function callEnded(callId: string, agentId: string, second = 0): string {
	return JSON.stringify({
		event_type: 'call_ended',
		call_id: callId,
		timestamp: `2026-11-26T10:00:${String(second).padStart(2, '0')}.000Z`,
		data: { agent_id: agentId },
	});
}

describe('many deliveries in flight in the process', () => {
	test(`with ${FORMER_BOUND} runs under way (When Last Node Finishes), ${FORMER_BOUND / 2} more events each start a run at once: none refused`, async () => {
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
		const held = Array.from({ length: FORMER_BOUND }, (_, index) =>
			post(url, callEnded(`call_held_${index}`, agent.id)),
		);
		await trigger.waitForExecutions(FORMER_BOUND);

		const more = Array.from({ length: FORMER_BOUND / 2 }, (_, index) =>
			post(url, callEnded(`call_more_${index}`, agent.id)),
		);
		await trigger.waitForExecutions(FORMER_BOUND * 1.5);
		open();

		const answers = await Promise.all([...held, ...more]);
		expect(answers.map((answer) => answer.status)).toEqual(Array(FORMER_BOUND * 1.5).fill(200));
		expect(answers.every((answer) => (answer.body as IDataObject).done === true)).toBe(true);
		expect(trigger.executions).toHaveLength(FORMER_BOUND * 1.5);
		expect(warnings.messages()).toEqual([]);
	});
});

describe('Include Call Details in a burst', () => {
	test(`GET /call goes at most ${MAX_DETAIL_READS} at a time in the process, and every event runs with its call`, async () => {
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
		expect(trigger.executions.every((execution) => execution.items[0].call !== undefined)).toBe(
			true,
		);
		const traffic = (await sandbox.control('GET', '/traffic')).body;
		expect(traffic.api_requests).toBe(30);
		expect(traffic.max_in_flight).toBeLessThanOrEqual(MAX_DETAIL_READS);
	});

	test(`a read whose turn does not come within ${MAX_DETAIL_WAIT_MS / 1000} s is skipped: the event runs at once without the call, and says why`, async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id, {
			events: ['call_ended'],
			options: { includeCallDetails: true },
		});
		await trigger.activate();
		const url: string = (await getAgent(sandbox, agent.id)).webhook;
		// Each read takes 1.5 s (within the read's own 2 s), so the reads of the first events hold every turn.
		await sandbox.faults({ match: 'GET /call', latency_ms: 1_500 });

		const started = Date.now();
		const first = Array.from({ length: MAX_DETAIL_READS }, (_, second) =>
			post(url, callEnded(call.id, agent.id, second)),
		);
		await sleep(100);
		const late = Array.from({ length: MAX_DETAIL_READS * 2 }, (_, index) =>
			post(url, callEnded(call.id, agent.id, MAX_DETAIL_READS + index)),
		);
		const answers = await Promise.all([...first, ...late]);

		expect(answers.map((answer) => answer.status)).toEqual(Array(MAX_DETAIL_READS * 3).fill(200));
		expect(Date.now() - started).toBeLessThan(6_000);
		const items = trigger.executions.map((execution) => execution.items[0]);
		expect(items).toHaveLength(MAX_DETAIL_READS * 3);
		const skipped = items.filter((item) => item.call === undefined);
		// The second wave got the turns the first gave back (within 2 s); the third never did.
		expect(skipped.length).toBeGreaterThanOrEqual(1);
		for (const item of skipped)
			expect(item.call_details_skipped).toBe(
				`Call details not read: ${MAX_DETAIL_READS} reads of call details were under way in this n8n process for over 2 s`,
			);
		expect(items.filter((item) => item.call !== undefined).length).toBeGreaterThanOrEqual(
			MAX_DETAIL_READS,
		);
	});

	test('a delivery whose sender stopped waiting while its details were read still runs, once; its redelivery starts nothing', async () => {
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
		await trigger.waitForExecutions(1);
		await trigger.idle();

		expect(gone).toBe('TimeoutError');
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.executions[0].items[0].call).toMatchObject({ id: call.id });
		expect(await post(url, body)).toEqual({
			status: 200,
			body: { received: true, duplicate: true },
		});
		expect(trigger.executions).toHaveLength(1);
	});
});
