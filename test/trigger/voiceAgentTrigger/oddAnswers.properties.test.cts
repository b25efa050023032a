/**
 * The Voice Agent Trigger with Include Call Details when the service's answers to GET /call are odd, as
 * invariants over drawn histories: batches of deliveries of a few call_ended events (the same event twice
 * at once, too), while GET /call answers normally, answers 200 with something that is not the call
 * (sandbox variants: `null`, an array, an HTML page, truncated JSON, missing or mistyped fields; every
 * n-th answer), or fails (403, 500). Real: the trigger in n8n-core's WebhookContext, over HTTP (./trigger.cts).
 *
 * Invariants:
 * - every delivery is answered 200: its first delivery runs the workflow (with the call, or without it and
 *   saying why), every other one (also at the same moment) is a repeat that starts nothing; never a
 *   refusal, never a failed execution;
 * - every event ends with exactly one run, whatever GET /call answered; a run has the call exactly when
 *   the read gave it, and the call it has is the call as the service holds it.
 */
import fc from 'fast-check';

import type { OddAnswer } from '../../../sandbox/variants.js';
import { createAgent, getAgent, getCall, placeCall } from '../../support/api.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { post, useTriggers, type ResponseMode } from './trigger.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const triggers = useTriggers(sandbox);

const RUNS = 30;
const EVENTS = 3;

type Step =
	| { kind: 'answers'; answer: OddAnswer; every: number }
	| { kind: 'fault'; status: 403 | 500; times: number }
	| { kind: 'deliver'; events: number[] };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('answers' as const),
			answer: fc.constantFrom<OddAnswer>(
				'normal',
				'null',
				'array',
				'html',
				'truncated',
				'missing_fields',
				'mistyped_fields',
			),
			every: fc.integer({ min: 1, max: 3 }),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('fault' as const),
			status: fc.constantFrom<403 | 500>(403, 500),
			times: fc.integer({ min: 1, max: 3 }),
		}),
	},
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('deliver' as const),
			events: fc.array(fc.nat(EVENTS - 1), { minLength: 1, maxLength: 3 }),
		}),
	},
);

const historyArbitrary = fc.record({
	mode: fc.constantFrom<ResponseMode>('onReceived', 'lastNode'),
	steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 12 }),
});

type History = typeof historyArbitrary extends fc.Arbitrary<infer T> ? T : never;

describe('Include Call Details under odd answers of GET /call, over drawn histories', () => {
	test(
		'every delivery is answered 200, every event runs exactly once, with its call or saying why not',
		async () => {
			const agent = await createAgent(sandbox, { name: 'Orders' });
			const harnesses = new Map<ResponseMode, Awaited<ReturnType<typeof triggers.start>>>();
			for (const responseMode of ['onReceived', 'lastNode'] as const) {
				harnesses.set(
					responseMode,
					await triggers.start(
						agent.id,
						{ responseMode, events: ['call_ended'], options: { includeCallDetails: true } },
						{ workflowAnswer: () => ({ done: true }) },
					),
				);
			}
			let active: ResponseMode | undefined;
			let history = 0;

			const check = async (drawn: History) => {
				history++;
				const trigger = harnesses.get(drawn.mode)!;
				if (active !== drawn.mode) {
					if (active) await harnesses.get(active)!.deactivate();
					await trigger.activate();
					active = drawn.mode;
				}
				await sandbox.variants({});
				await sandbox.faults({});
				const url: string = (await getAgent(sandbox, agent.id)).webhook;
				const calls: Array<{ id: string }> = [];
				for (let event = 0; event < EVENTS; event++) calls.push(await placeCall(sandbox, agent));
				const bodies = calls.map((call) =>
					JSON.stringify({
						event_type: 'call_ended',
						call_id: call.id,
						timestamp: `2026-11-26T10:00:0${history % 10}.000Z`,
						data: { agent_id: agent.id },
					}),
				);
				const executionsAt = trigger.executions.length;
				const runsOf = (event: number) =>
					trigger.executions
						.slice(executionsAt)
						.filter((execution) => execution.items[0].call_id === calls[event].id);
				const ran = Array<boolean>(EVENTS).fill(false);
				const accepted = drawn.mode === 'onReceived' ? { received: true } : { done: true };
				const repeat = { received: true, duplicate: true };

				const deliverAll = async (events: number[]) => {
					const answers = await Promise.all(events.map((event) => post(url, bodies[event])));
					answers.forEach((answer, index) => {
						const event = events[index];
						expect(answer.status).toBe(200);
						expect([accepted, repeat]).toContainEqual(answer.body);
						if (JSON.stringify(answer.body) === JSON.stringify(accepted)) {
							// Only the event's first delivery runs it.
							expect(ran[event]).toBe(false);
							ran[event] = true;
						}
					});
					// Every event delivered has run, once.
					for (const event of new Set(events)) expect(ran[event]).toBe(true);
					for (let event = 0; event < EVENTS; event++)
						expect(runsOf(event)).toHaveLength(ran[event] ? 1 : 0);
				};

				for (const step of drawn.steps) {
					if (step.kind === 'answers')
						await sandbox.variants({ call_answer: step.answer, odd_answers_every: step.every });
					else if (step.kind === 'fault')
						await sandbox.faults({
							match: 'GET /call',
							error_rate: 1,
							status: step.status,
							times: step.times,
						});
					else await deliverAll(step.events);
				}

				// Each event delivered (again, or for the first time) with the service answering properly.
				await sandbox.variants({});
				await sandbox.faults({});
				await deliverAll(Array.from({ length: EVENTS }, (_, event) => event));
				for (let event = 0; event < EVENTS; event++) {
					const [run] = runsOf(event);
					expect(run.failed).toBeUndefined();
					const item = run.items[0];
					if (item.call === undefined)
						expect(item.call_details_skipped).toMatch(/^Call details not read: /);
					else expect(item.call).toEqual(await getCall(sandbox, calls[event].id));
				}
			};

			await fc.assert(fc.asyncProperty(historyArbitrary, check), propertyParameters(RUNS));
		},
		propertyTimeout(RUNS, 1_500),
	);
});
