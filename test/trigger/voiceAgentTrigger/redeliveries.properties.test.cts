/**
 * The Voice Agent Trigger's promise on redeliveries, as invariants over drawn histories: deliveries of a
 * few events (redeliveries, a delivery while the event's run is under way), runs that fail or succeed
 * in any order, in each Respond mode. Real: the trigger in n8n-core's WebhookContext, over HTTP (see
 * ./trigger.cts); the workflow's runs are held open until the history says how they end.
 *
 * Invariants, after every step and at the end:
 * - no event has two successful runs (and never two runs under way at once) in one process;
 * - no delivery of an event is refused: each is answered 2xx, or 500 by n8n when its own run failed;
 * - a delivery answered 2xx either ran the workflow successfully, or repeats an event whose run succeeded
 *   (a tool call then gets that run's answer again) or was still under way after the wait; with
 *   Immediately, accepting is handling;
 * - a delivery made while the event's run is under way waits for it: when that run fails, one waiting
 *   delivery runs the event; when it succeeds, each is answered as a repeat;
 * - no event is lost because a run failed: once nothing is under way, the next delivery of an event
 *   without a successful run runs the workflow, and every event ends handled exactly once.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { DUPLICATE_WAIT_MS } from '../../../nodes/VoiceAgentTrigger/events';
import { createAgent, getAgent } from '../../support/api.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { waitFor } from '../../support/wait.cts';
import { post, useTriggers, type ResponseMode, type TriggerHarness } from './trigger.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const triggers = useTriggers(sandbox);

const RUNS = 40;
const EVENTS = 3;

type Outcome = 'succeed' | 'fail';
type Step = { deliver: number } | { finish: number; outcome: Outcome };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
	fc.record({ deliver: fc.nat(EVENTS - 1) }),
	fc.record({ finish: fc.nat(7), outcome: fc.constantFrom<Outcome>('succeed', 'fail') }),
);

interface History {
	mode: ResponseMode;
	toolCalls: boolean[];
	steps: Step[];
	/** How runs still under way at the end come out, in order. */
	endings: Outcome[];
}

const historyArbitrary: fc.Arbitrary<History> = fc.record({
	mode: fc.constantFrom<ResponseMode>('onReceived', 'lastNode', 'responseNode'),
	toolCalls: fc.array(fc.boolean(), { minLength: EVENTS, maxLength: EVENTS }),
	steps: fc.array(stepArbitrary, { maxLength: 16 }),
	endings: fc.array(fc.constantFrom<Outcome>('succeed', 'fail'), { maxLength: 8 }),
});

type Answer = { status: number; body: unknown };

/** One delivery: its own id (in its URL's query, which the trigger ignores) and its answer to come. */
interface Delivery {
	id: string;
	event: number;
	answered: Promise<Answer>;
	answer?: Answer;
	sentAt: number;
	/** How long it waited for its answer. */
	waitedMs?: number;
}

/** A run of the workflow, held until the history ends it, and the delivery that started it. */
interface Run {
	event: number;
	delivery: Delivery;
	release(outcome: Outcome): void;
}

/** The workflow behind the trigger: each run waits until released, then answers or fails. */
class HeldWorkflow {
	/** Runs started, by the id of the delivery that started them. */
	private readonly started = new Map<string, Omit<Run, 'delivery'>>();
	/** Runs the trigger started, in all. */
	runs = 0;

	answer = (items: IDataObject[], _mode: ResponseMode, request: { query: IDataObject }) => {
		this.runs++;
		// Call IDs are `call_<history>_<event>`.
		const event = Number(String(items[0].call_id).split('_')[2]);
		return new Promise<IDataObject>((resolve, reject) => {
			this.started.set(String(request.query.delivery), {
				event,
				release: (outcome) =>
					outcome === 'succeed'
						? resolve({ result: `answer to event ${event}` })
						: reject(new Error('a node of the workflow failed')),
			});
		});
	};

	/** The run the delivery started, if it started one. */
	runOf(delivery: Delivery): Run | undefined {
		const run = this.started.get(delivery.id);
		return run && { ...run, delivery };
	}
}

let history = 0;
let deliveries = 0;

async function check(trigger: TriggerHarness, workflow: HeldWorkflow, url: string, drawn: History) {
	history++;
	const bodies = drawn.toolCalls.map((toolCall, event) =>
		JSON.stringify({
			event_type: toolCall ? 'tool_call' : 'call_started',
			call_id: `call_${history}_${event}`,
			timestamp: '2026-11-25T10:00:00.000Z',
			data: toolCall ? { name: 'check_order', arguments: { order_id: `${event}` } } : {},
		}),
	);
	const successes = Array<number>(EVENTS).fill(0);
	const underWay: Run[] = [];
	/** Deliveries made while their event's run was under way, still waiting. */
	let waiting: Delivery[] = [];
	const executionsAt = trigger.executions.length;
	const runsAt = workflow.runs;
	const immediate = drawn.mode === 'onReceived';
	const successBody = (event: number) => ({ result: `answer to event ${event}` });
	const repeat = { received: true, duplicate: true };
	/** What a repeat of the event may be answered: its run's answer (a tool call's, when it succeeded). */
	const repeatAnswers = (event: number) =>
		drawn.toolCalls[event] && successes[event] === 1 ? [repeat, successBody(event)] : [repeat];

	const send = (event: number): Delivery => {
		const id = String(++deliveries);
		const delivery: Delivery = {
			id,
			event,
			answered: post(`${url}&delivery=${id}`, bodies[event]),
			sentAt: Date.now(),
		};
		void delivery.answered.then((answer) => {
			delivery.waitedMs = Date.now() - delivery.sentAt;
			delivery.answer = answer;
		});
		return delivery;
	};

	/** Resolves once the delivery was answered or started a run (held). */
	const settled = (delivery: Delivery) =>
		waitFor(
			() => `delivery ${delivery.id} answered or running`,
			() => delivery.answer ?? workflow.runOf(delivery),
			10_000,
		);

	const startRun = (run: Run) => {
		// A run starts only for an event with no run under way and none that succeeded.
		expect(underWay.some((other) => other.event === run.event)).toBe(false);
		expect(successes[run.event]).toBe(0);
		underWay.push(run);
	};

	const deliver = async (event: number) => {
		const runUnderWay = underWay.some((run) => run.event === event);
		const delivery = send(event);
		if (runUnderWay) {
			// It waits for that run: settled when the run ends (or after the trigger's wait).
			waiting.push(delivery);
			return;
		}
		await settled(delivery);
		const run = workflow.runOf(delivery);
		if (run) return startRun(run);
		const { status, body } = delivery.answer!;
		expect(status).toBe(200);
		if (immediate) {
			if (JSON.stringify(body) === '{"received":true}') successes[event]++;
			else expect(body).toEqual(repeat);
			expect(successes[event]).toBe(1);
			return;
		}
		// Nothing under way and no run started: only a repeat of an event whose run succeeded.
		expect(successes[event]).toBe(1);
		expect(repeatAnswers(event)).toContainEqual(body);
	};

	/**
	 * A waiting delivery answered without a run: a repeat of an event whose run succeeded, or one whose
	 * run was still under way when the trigger's wait ended.
	 */
	const checkRepeat = (delivery: Delivery) => {
		expect(delivery.answer?.status).toBe(200);
		expect(repeatAnswers(delivery.event)).toContainEqual(delivery.answer?.body);
		if (successes[delivery.event] === 0)
			expect(delivery.waitedMs).toBeGreaterThanOrEqual(DUPLICATE_WAIT_MS - 50);
	};

	const finish = async (run: Run, outcome: Outcome) => {
		underWay.splice(underWay.indexOf(run), 1);
		run.release(outcome);
		const answer = await run.delivery.answered;
		if (outcome === 'succeed') {
			expect(answer).toEqual({ status: 200, body: successBody(run.event) });
			successes[run.event]++;
		} else {
			expect(answer.status).toBe(500);
		}
		expect(successes[run.event]).toBeLessThanOrEqual(1);
		const ofEvent = waiting.filter((delivery) => delivery.event === run.event);
		waiting = waiting.filter((delivery) => delivery.event !== run.event);
		if (outcome === 'succeed') {
			for (const delivery of ofEvent) {
				await delivery.answered;
				checkRepeat(delivery);
			}
			return;
		}
		// The run failed: one waiting delivery runs the event; the others wait on that run.
		await waitFor(
			() => 'a waiting delivery to run the event, or every one to be answered',
			() =>
				ofEvent.some((delivery) => workflow.runOf(delivery)) ||
				ofEvent.every((delivery) => delivery.answer) ||
				undefined,
			10_000,
		);
		const runs = ofEvent.map((delivery) => workflow.runOf(delivery)).filter((next) => next);
		expect(runs.length).toBeLessThanOrEqual(1);
		if (runs[0]) startRun(runs[0]);
		for (const delivery of ofEvent) {
			if (delivery === runs[0]?.delivery) continue;
			if (delivery.answer && !runs[0]) checkRepeat(delivery);
			else waiting.push(delivery);
		}
	};

	for (const step of drawn.steps) {
		if ('deliver' in step) await deliver(step.deliver);
		else if (underWay.length > 0)
			await finish(underWay[step.finish % underWay.length], step.outcome);
	}
	for (let index = 0; underWay.length > 0; index++)
		await finish(underWay[0], drawn.endings[index] ?? 'fail');
	for (const delivery of waiting) {
		await delivery.answered;
		checkRepeat(delivery);
	}

	// Nothing is under way: one more delivery of an event whose runs all failed runs it.
	for (let event = 0; event < EVENTS; event++) {
		await deliver(event);
		const run = underWay[0];
		if (run) await finish(run, 'succeed');
	}
	expect(successes).toEqual(Array(EVENTS).fill(1));
	// Executions are the runs: repeats started none.
	expect(trigger.executions.length - executionsAt).toBe(
		immediate ? EVENTS : workflow.runs - runsAt,
	);
}

describe('redeliveries, over drawn histories', () => {
	test(
		'every event ends handled exactly once in one process, whatever failed, repeated or overlapped',
		async () => {
			const agent = await createAgent(sandbox, { name: 'Orders' });
			const setUp = async (responseMode: ResponseMode) => {
				const workflow = new HeldWorkflow();
				const trigger = await triggers.start(
					agent.id,
					{ responseMode },
					{ workflowAnswer: workflow.answer },
				);
				return { workflow, trigger };
			};
			// One trigger (one agent, one URL) per Respond mode, published in turn.
			const harnesses = new Map<ResponseMode, Awaited<ReturnType<typeof setUp>>>();
			for (const mode of ['onReceived', 'lastNode', 'responseNode'] as const)
				harnesses.set(mode, await setUp(mode));

			let active: ResponseMode | undefined;
			await fc.assert(
				fc.asyncProperty(historyArbitrary, async (drawn) => {
					const { workflow, trigger } = harnesses.get(drawn.mode)!;
					if (active !== drawn.mode) {
						if (active) await harnesses.get(active)!.trigger.deactivate();
						await trigger.activate();
						active = drawn.mode;
					}
					const url: string = (await getAgent(sandbox, agent.id)).webhook;
					await check(trigger, workflow, url, drawn);
				}),
				propertyParameters(RUNS),
			);
		},
		propertyTimeout(RUNS, 300),
	);
});
