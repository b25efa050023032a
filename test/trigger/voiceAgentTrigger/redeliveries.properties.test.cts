/**
 * The Voice Agent Trigger's promise on redeliveries, as invariants over drawn histories: deliveries of a
 * few events (redeliveries, a delivery while the event's run is under way), runs that fail or succeed
 * in any order, in each Respond mode. Real: the trigger in n8n-core's WebhookContext, over HTTP (see
 * ./trigger.cts); the workflow's runs are held open until the history says how they end.
 *
 * Invariants, after every step and at the end:
 * - no event has two successful runs (and never two runs under way at once) in one process;
 * - a delivery answered 2xx either ran the workflow successfully, or repeats an event whose run
 *   succeeded (a tool call then gets that run's answer again); with Immediately, accepting is handling;
 * - a delivery refused while its event's run is under way is answered 409 and starts nothing;
 * - no event is lost because a run failed: once nothing is under way, the next delivery of an event
 *   without a successful run runs the workflow, and every event ends handled exactly once.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { createAgent, getAgent } from '../../support/api.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSandbox } from '../../support/sandbox.cts';
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

/** A run of the workflow, held until the history ends it. */
interface Run {
	event: number;
	release(outcome: Outcome): void;
	answered: Promise<{ status: number; body: unknown }>;
}

type Answer = { status: number; body: unknown };

/** The workflow behind the trigger: each run waits until released, then answers or fails. */
class HeldWorkflow {
	readonly underWay: Run[] = [];
	/** Resolved with the run a delivery started, if any. */
	private started: ((run: Omit<Run, 'answered'>) => void) | undefined;
	/** Runs the trigger started, in all. */
	runs = 0;

	answer = (items: IDataObject[]): Promise<IDataObject> => {
		this.runs++;
		// Call IDs are `call_<history>_<event>`.
		const event = Number(String(items[0].call_id).split('_')[2]);
		return new Promise((resolve, reject) => {
			this.started?.({
				event,
				release: (outcome) =>
					outcome === 'succeed'
						? resolve({ result: `answer to event ${event}` })
						: reject(new Error('a node of the workflow failed')),
			});
		});
	};

	/** Delivers a body; resolves once it was answered, or once it started a run (held). */
	async deliver(url: string, body: string): Promise<{ answer: Answer } | { run: Run }> {
		const startedRun = new Promise<Omit<Run, 'answered'>>((resolve) => {
			this.started = resolve;
		});
		const answered = post(url, body);
		const first = await Promise.race([
			answered.then((answer) => ({ answer })),
			startedRun.then((run) => ({ run })),
		]);
		this.started = undefined;
		if ('answer' in first) return first;
		const run: Run = { ...first.run, answered };
		this.underWay.push(run);
		return { run };
	}
}

let history = 0;

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
	const executionsAt = trigger.executions.length;
	const runsAt = workflow.runs;
	const immediate = drawn.mode === 'onReceived';
	const successBody = (event: number) => ({ result: `answer to event ${event}` });

	const deliver = async (event: number) => {
		const underWayBefore = workflow.underWay.some((run) => run.event === event);
		const outcome = await workflow.deliver(url, bodies[event]);
		if ('run' in outcome) {
			// A run starts only for an event with no run under way and none that succeeded.
			expect(underWayBefore).toBe(false);
			expect(successes[event]).toBe(0);
			return;
		}
		const { status, body } = outcome.answer;
		if (immediate) {
			if (status === 200 && JSON.stringify(body) === '{"received":true}') successes[event]++;
			else
				expect(outcome.answer).toEqual({ status: 200, body: { received: true, duplicate: true } });
			expect(successes[event]).toBe(1);
			return;
		}
		if (underWayBefore) {
			expect(status).toBe(409);
			return;
		}
		// Nothing under way and no run started: only a repeat of an event whose run succeeded.
		expect(successes[event]).toBe(1);
		expect(outcome.answer).toEqual({
			status: 200,
			body: drawn.toolCalls[event] ? successBody(event) : { received: true, duplicate: true },
		});
	};

	const finish = async (run: Run, outcome: Outcome) => {
		workflow.underWay.splice(workflow.underWay.indexOf(run), 1);
		run.release(outcome);
		const answer = await run.answered;
		if (outcome === 'succeed') {
			expect(answer).toEqual({ status: 200, body: successBody(run.event) });
			successes[run.event]++;
		} else {
			expect(answer.status).toBe(500);
		}
		expect(successes[run.event]).toBeLessThanOrEqual(1);
	};

	for (const step of drawn.steps) {
		if ('deliver' in step) await deliver(step.deliver);
		else if (workflow.underWay.length > 0)
			await finish(workflow.underWay[step.finish % workflow.underWay.length], step.outcome);
	}
	for (const [index, run] of [...workflow.underWay].entries())
		await finish(run, drawn.endings[index] ?? 'fail');

	// The service delivers each event again until it gets a 2xx: one more delivery is enough.
	for (let event = 0; event < EVENTS; event++) {
		await deliver(event);
		const run = workflow.underWay[0];
		if (run) await finish(run, 'succeed');
	}
	expect(successes).toEqual(Array(EVENTS).fill(1));
	// Executions are the runs: refusals and repeats started none.
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
