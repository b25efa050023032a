/**
 * Call → Create's promises as invariants over drawn runs. Each run draws the items (duplicate numbers,
 * bad input, agents that exist or not), the node's options, what the service answers (every answer
 * shape the contract leaves open; 4xx; 5xx before and after acting; resets; 429), and what n8n does
 * (Retry On Fail tries, On Error → Continue, a loop that runs the node again, *Retry execution* from the
 * saved state, uses of the tool at the same time). fast-check's scheduler orders the requests and the
 * answers between the node and the sandbox (a scheduling proxy), so each run explores an interleaving
 * of the batch's concurrent items or of the tool's concurrent uses. After every run:
 *
 * - each intended call is placed at most once per number;
 * - Max Calls per Run is never exceeded;
 * - calls in progress never exceed Calls at Once while waiting;
 * - nothing is dialled when any item's input is bad (without On Error → Continue);
 * - every item has exactly one output, paired with its input, whenever the node outputs;
 * - an item that says it placed nothing did not place a call.
 *
 * The pace (Max New Calls per Minute) needs a minute per case and is proven by examples
 * (create.promises.test.cts). Settings: test/support/properties.cts.
 */
import fc from 'fast-check';
import type { IRun } from 'n8n-workflow';

import { allCalls, createAgent } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { runNode, type NodeRun } from '../../support/node.cts';
import { postCallFault } from '../../support/postFaults.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSchedulingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { toolExecution } from '../../support/toolUse.cts';

// Calls of 800 ms, so that waiting items time out (Max Wait 0.6 s) and hold their slots a little longer.
const sandbox = useSandbox({ callDurationMs: 800 });
const proxy = useSchedulingProxy(sandbox);

const NUMBERS = ['+14155550101', '+14155550102', '+14155550103'];
const GOOD_AGENTS = ['Front Desk', 'Night Desk'];

interface Item {
	to: string;
	agent: string;
}

const goodItem = fc.record({
	to: fc.constantFrom(...NUMBERS),
	agent: fc.constantFrom(...GOOD_AGENTS),
});
const badItem = fc.oneof(
	fc.record({ to: fc.constant('555-0100'), agent: fc.constantFrom(...GOOD_AGENTS) }),
	fc.record({ to: fc.constantFrom(...NUMBERS), agent: fc.constantFrom('Nobody', '') }),
);
const isBad = (item: Item) => !NUMBERS.includes(item.to) || !GOOD_AGENTS.includes(item.agent);

const answerShape = fc.constantFrom('call', 'status_call_id', 'empty_202', 'empty_201', 'null');

const postFault = postCallFault(
	['500 before', '500 after', 'reset after', 'reset before', '400', '429'],
	fc.integer({ min: 1, max: 2 }),
);

const batchScenario = fc.record({
	items: fc.array(fc.oneof({ weight: 6, arbitrary: goodItem }, { weight: 1, arbitrary: badItem }), {
		minLength: 1,
		maxLength: 5,
	}),
	version: fc.constantFrom(1.1, 1.2),
	callsAtOnce: fc.integer({ min: 1, max: 3 }),
	maxCalls: fc.integer({ min: 0, max: 4 }),
	wait: fc.boolean(),
	answer: answerShape,
	postFault,
	tries: fc.integer({ min: 1, max: 3 }),
	continueOnFail: fc.boolean(),
	loop: fc.boolean(),
	retryExecution: fc.boolean(),
	scheduler: fc.scheduler(),
});

type BatchScenario = typeof batchScenario extends fc.Arbitrary<infer T> ? T : never;

/** The calls the service holds, per number: what was really placed, whatever the node was told. */
async function placedPerNumber(): Promise<Map<string, number>> {
	const placed = new Map<string, number>();
	for (const call of await allCalls(sandbox))
		placed.set(call.client_number, (placed.get(call.client_number) ?? 0) + 1);
	return placed;
}

function runBatch(scenario: BatchScenario, more: { retryOf?: IRun; executionId: string }) {
	const passes = scenario.loop ? [scenario.items, scenario.items] : [scenario.items];
	return runNode({
		parameters: {
			resource: 'call',
			operation: 'create',
			from: rl('={{ $json.agent }}', 'name'),
			to: '={{ $json.to }}',
			options: {
				callsAtOnce: scenario.callsAtOnce,
				maxCallsPerRun: scenario.maxCalls,
				...(scenario.wait ? { waitForEnd: true, maxWaitMinutes: 0.01, firstCheckSeconds: 1 } : {}),
			},
		},
		credentials: { apiKey: sandbox.apiKey, baseUrl: `${proxy.origin}/v1` },
		typeVersion: scenario.version,
		input: passes[0],
		laterInputs: passes.slice(1),
		continueOnFail: scenario.continueOnFail,
		settings:
			scenario.tries > 1
				? { retryOnFail: true, maxTries: scenario.tries, waitBetweenTries: 0 }
				: undefined,
		...more,
	});
}

function checkOutputs(scenario: BatchScenario, result: NodeRun) {
	if (result.error) return;
	for (const task of result.run.data.resultData.runData['Voice Agent'] ?? []) {
		const items = task.data?.main[0] ?? [];
		expect(items.map((item) => item.pairedItem)).toEqual(
			scenario.items.map((_, item) => ({ item })),
		);
	}
}

describe('Call → Create over a batch, whatever the service answers and however n8n runs it again', () => {
	test(
		'the invariants hold after every run',
		async () => {
			let runs = 0;
			await fc.assert(
				fc.asyncProperty(batchScenario, async (scenario) => {
					await sandbox.reset();
					await createAgent(sandbox, { name: 'Front Desk' });
					await createAgent(sandbox, { name: 'Night Desk' });
					await sandbox.variants({ create_answer: scenario.answer as 'call' });
					if (scenario.postFault) await sandbox.faults(scenario.postFault);
					await sandbox.control('DELETE', '/call-load');
					proxy.use(scenario.scheduler);
					const execution = `${++runs}`;
					let result = await scenario.scheduler.waitFor(
						runBatch(scenario, { executionId: execution }),
					);
					checkOutputs(scenario, result);
					if (scenario.retryExecution && result.error) {
						await sandbox.faults({});
						result = await scenario.scheduler.waitFor(
							runBatch(scenario, { executionId: `${execution}-retry`, retryOf: result.run }),
						);
					}
					proxy.use(undefined);

					const placed = await placedPerNumber();
					const total = [...placed.values()].reduce((sum, count) => sum + count, 0);
					const passes = scenario.loop ? 2 : 1;
					const valid = scenario.items.filter((item) => !isBad(item));
					// Nothing is dialled when an item's input is bad, unless bad items are errors in place.
					if (!scenario.continueOnFail && valid.length < scenario.items.length)
						expect(total).toBe(0);
					if (scenario.maxCalls > 0) expect(total).toBeLessThanOrEqual(scenario.maxCalls);
					for (const [to, count] of placed) {
						const intended =
							scenario.version >= 1.2
								? new Set(valid.filter((item) => item.to === to).map((item) => item.agent)).size
								: valid.filter((item) => item.to === to).length * passes;
						expect({ to, count }).toEqual({ to, count: Math.min(count, intended) });
					}
					if (scenario.wait) {
						const load = (await sandbox.control('GET', '/call-load')).body.accounts[0];
						expect(load.max_in_progress).toBeLessThanOrEqual(scenario.callsAtOnce);
					}
					// An item that says it placed nothing, where it is the only item with its number: no call.
					if (!result.error) {
						const task = result.run.data.resultData.runData['Voice Agent']?.[0];
						(task?.data?.main[0] ?? []).forEach(({ json }, index) => {
							const item = scenario.items[index];
							const alone = scenario.items.filter((other) => other.to === item.to).length === 1;
							if (
								alone &&
								!scenario.loop &&
								/no call was placed|was not placed/.test(String(json.error))
							)
								expect(placed.get(item.to) ?? 0).toBe(0);
						});
					}
				}),
				propertyParameters(15),
			);
		},
		propertyTimeout(15, 4_000),
	);
});

const toolScenario = fc.record({
	uses: fc.array(fc.constantFrom(...NUMBERS), { minLength: 2, maxLength: 4 }),
	maxCalls: fc.integer({ min: 0, max: 3 }),
	answer: answerShape,
	postFault,
	tries: fc.integer({ min: 1, max: 2 }),
	scheduler: fc.scheduler(),
});

describe('uses of the tool at the same time, in any order of requests and answers', () => {
	test(
		'each number is phoned at most once, and Max Calls per Run holds',
		async () => {
			await fc.assert(
				fc.asyncProperty(toolScenario, async (scenario) => {
					await sandbox.reset();
					await createAgent(sandbox, { name: 'Front Desk' });
					await sandbox.variants({ create_answer: scenario.answer as 'call' });
					if (scenario.postFault) await sandbox.faults(scenario.postFault);
					proxy.use(scenario.scheduler);
					const execution = await toolExecution(
						{ apiKey: sandbox.apiKey, baseUrl: `${proxy.origin}/v1` },
						{
							resource: 'call',
							operation: 'create',
							from: rl('Front Desk', 'name'),
							to: "={{ $fromAI('To', 'The number to call', 'string') }}",
							// The hour's budget is its own property (create.executions.properties): off here, or the
							// process's count of an agent's calls (the same agent ID after each reset) would refuse every
							// use after the first few runs.
							options: {
								allowedDestinations: '+1415',
								maxCallsPerRun: scenario.maxCalls,
								maxCallsPerHour: 0,
							},
						},
						scenario.tries > 1
							? { retryOnFail: true, maxTries: scenario.tries, waitBetweenTries: 0 }
							: {},
					);
					await scenario.scheduler.waitFor(
						Promise.allSettled(scenario.uses.map((To) => execution.use({ To }))),
					);
					proxy.use(undefined);

					const placed = await placedPerNumber();
					for (const count of placed.values()) expect(count).toBe(1);
					const total = [...placed.values()].reduce((sum, count) => sum + count, 0);
					expect(total).toBeLessThanOrEqual(
						scenario.maxCalls === 0 ? NUMBERS.length : scenario.maxCalls,
					);
				}),
				propertyParameters(30),
			);
		},
		propertyTimeout(30, 1_500),
	);
});
