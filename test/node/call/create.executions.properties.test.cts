/**
 * Call → Create's guards across executions of one n8n process (issue 29), as invariants over drawn runs.
 * Each run starts several executions at the same moment, each with its own execution ID and context:
 * workflow executions of one Create node (a webhook delivered again, an overlapping pass) and tool
 * executions (each MCP tool call is one), with Retry On Fail and On Error → Continue, drawn answers and
 * faults from the sandbox. fast-check's scheduler orders every request and answer between the node and
 * the sandbox (a scheduling proxy), so each run explores an interleaving of the executions. After every
 * run:
 *
 * - no number is dialled twice: the claims and the skip window together leave one call per number;
 * - Max Calls per Hour (drawn, or the tool's default) is never exceeded: all calls are in one hour;
 * - with node version 1.4 and the calls awaited, calls in progress never exceed Calls at Once, all
 *   executions of the node together (checked in runs without faults: an execution that stops frees its
 *   slots while its calls may still be going on).
 *
 * The pace (Max New Calls per Minute) needs a minute per case and is proven by the engine test
 * (create.executions.test.cts). Settings: test/support/properties.cts.
 */
import fc from 'fast-check';

import { allCalls, createAgent } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { runNode } from '../../support/node.cts';
import { postCallFault } from '../../support/postFaults.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSchedulingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { toolExecution } from '../../support/toolUse.cts';
import { waitFor } from '../../support/wait.cts';

// Calls of 800 ms: awaited calls end within the property's Max Wait, and overlap each other.
const sandbox = useSandbox({ callDurationMs: 800 });
const proxy = useSchedulingProxy(sandbox);

const NUMBERS = ['+14155550101', '+14155550102', '+14155550103', '+14155550104'];
/** The tool's budget when the workflow sets none (callsPerHour.ts). */
const TOOL_DEFAULT_BUDGET = 5;

const postFault = postCallFault(
	['500 before', '500 after', 'reset after', '400', '429'],
	fc.integer({ min: 1, max: 2 }),
);

const executionOf = fc.record({
	kind: fc.constantFrom('workflow', 'tool'),
	numbers: fc.array(fc.constantFrom(...NUMBERS), { minLength: 1, maxLength: 4 }),
	tries: fc.integer({ min: 1, max: 2 }),
	continueOnFail: fc.boolean(),
});

const scenario = fc.record({
	executions: fc.array(executionOf, { minLength: 2, maxLength: 4 }),
	version: fc.constantFrom(1.3, 1.4),
	callsAtOnce: fc.integer({ min: 1, max: 3 }),
	budget: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
	wait: fc.boolean(),
	answer: fc.constantFrom('call', 'call', 'status_call_id', 'empty_202', 'null'),
	postFault,
	scheduler: fc.scheduler(),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;
type Execution = Scenario['executions'][number];

function createParameters(run: Scenario, agent: string, to: string) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agent, 'name'),
		to,
		options: {
			allowedDestinations: '+1415',
			maxCallsPerRun: 0,
			callsAtOnce: run.callsAtOnce,
			...(run.budget === undefined ? {} : { maxCallsPerHour: run.budget }),
			...(run.wait ? { waitForEnd: true, maxWaitMinutes: 1, firstCheckSeconds: 1 } : {}),
		},
	};
}

async function start(run: Scenario, execution: Execution, agent: string, id: string) {
	const credentials = { apiKey: sandbox.apiKey, baseUrl: `${proxy.origin}/v1` };
	const settings =
		execution.tries > 1
			? { retryOnFail: true, maxTries: execution.tries, waitBetweenTries: 0 }
			: {};
	if (execution.kind === 'tool') {
		const parameters = {
			...createParameters(run, agent, "={{ $fromAI('To', 'The number to call', 'string') }}"),
			options: { ...createParameters(run, agent, '').options, waitForEnd: false },
		};
		const tool = await toolExecution(credentials, parameters, settings, id);
		return await Promise.allSettled(execution.numbers.map((To) => tool.use({ To })));
	}
	return await runNode({
		parameters: createParameters(run, agent, '={{ $json.to }}'),
		credentials,
		typeVersion: run.version,
		executionId: id,
		input: execution.numbers.map((to) => ({ to })),
		continueOnFail: execution.continueOnFail,
		settings,
	});
}

describe('executions of one process at the same moment, in any order of requests and answers', () => {
	test(
		'one call per number, the hourly budget, and Calls at Once per node hold',
		async () => {
			let runs = 0;
			await fc.assert(
				fc.asyncProperty(scenario, async (run) => {
					// A new agent each run: the process's memory of an agent's calls (the budget) is its own,
					// and the sandbox is not reset under it.
					const agent = await createAgent(sandbox, { name: `Desk ${++runs}` });
					await sandbox.variants({ create_answer: run.answer as 'call' });
					await sandbox.faults(run.postFault ?? {});
					// Calls at Once is checked on the account's calls in progress: an earlier run's calls
					// (800 ms each) end first, or they would count as this run's (seed -830394900 found it).
					await waitFor("the earlier runs' calls to end", async () =>
						(await sandbox.control('GET', '/call-load')).body.accounts[0].in_progress === 0
							? true
							: undefined,
					);
					await sandbox.control('DELETE', '/call-load');
					proxy.use(run.scheduler);
					await run.scheduler.waitFor(
						Promise.allSettled(
							run.executions.map((execution, index) =>
								start(run, execution, agent.name, `run-${runs}-${index}`),
							),
						),
					);
					proxy.use(undefined);
					await sandbox.faults({});
					await sandbox.variants({});

					const calls = await allCalls(sandbox, { agent_id: agent.id });
					const perNumber = new Map<string, number>();
					for (const call of calls)
						perNumber.set(call.client_number, (perNumber.get(call.client_number) ?? 0) + 1);
					for (const [to, count] of perNumber) expect({ to, count }).toEqual({ to, count: 1 });
					const tools = run.executions.some((execution) => execution.kind === 'tool');
					const budget = run.budget ?? (tools ? TOOL_DEFAULT_BUDGET : 0);
					if (budget > 0) expect(calls.length).toBeLessThanOrEqual(budget);
					if (run.version >= 1.4 && run.wait && !tools && !run.postFault) {
						const load = (await sandbox.control('GET', '/call-load')).body.accounts[0];
						expect(load.max_in_progress).toBeLessThanOrEqual(run.callsAtOnce);
					}
				}),
				propertyParameters(12),
			);
		},
		propertyTimeout(12, 6_000),
	);
});
