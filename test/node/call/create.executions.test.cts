/**
 * Call → Create's guards across executions of one n8n process (issue 29), one test per row of its table:
 * n8n runs one job as many executions at once (each MCP tool call, each webhook delivery, each scheduled
 * pass, a Retry execution while the original runs), and they all share the node's module. Each test runs
 * several executions in n8n-core's real engine at the same time, each with its own execution ID and
 * context, against the sandbox; its request log counts the calls placed.
 */
import { createAgent, dialsByNumber, endCall, placeCall, wire } from '../../support/api.cts';
import { restoreClock, jumpClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type NodeRun, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox, type TestSandbox } from '../../support/sandbox.cts';
import { toolExecution } from '../../support/toolUse.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });
const credentials = (of: TestSandbox = sandbox) => ({ apiKey: of.apiKey, baseUrl: of.baseUrl });

function create(options: Record<string, unknown> = {}, more: Record<string, unknown> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		options: { allowedDestinations: '+1415', ...options },
		...more,
	};
}

/** As an MCP client or an AI Agent uses it: the model fills To. */
const asTool = (options: Record<string, unknown> = {}) =>
	create(options, { to: "={{ $fromAI('To', 'The number to call', 'string') }}" });

function execution(id: string, more: Partial<RunNodeOptions>, of: TestSandbox = sandbox) {
	return runNode({
		parameters: create(),
		credentials: credentials(of),
		typeVersion: 1.3,
		executionId: id,
		...more,
	});
}

/** POST /call answered 2xx, per number: how many times each was phoned. */
const dialled = (of: TestSandbox = sandbox) => dialsByNumber(of);

const leads = (count: number, first = 1001) =>
	Array.from({ length: count }, (_, n) => ({ to: `+1415555${first + n}` }));

beforeEach(async () => {
	await createAgent(sandbox, { name: 'Front Desk' });
	await sandbox.clearRequests();
});

describe('one number, several executions at once', () => {
	test.each([0, 15])(
		'three executions, POST /call taking 800 ms, skip window %i: phoned once; the others output it as skipped, naming the execution',
		async (window) => {
			await sandbox.faults({ match: 'POST /call', latency_ms: 800 });
			const parameters = create({}, { skipCalledWithinMinutes: window });

			const runs = await Promise.all(
				['exec-1', 'exec-2', 'exec-3'].map((id) =>
					execution(id, { parameters, input: [{ to: '+14155550123' }] }),
				),
			);

			expect(await dialled()).toEqual({ '+14155550123': 1 });
			const outputs = runs.map((run) => jsonOf(run)[0]);
			const placed = outputs.filter((item) => item.outcome === 'placed');
			expect(placed).toHaveLength(1);
			const placerId = ['exec-1', 'exec-2', 'exec-3'][outputs.indexOf(placed[0])];
			for (const item of outputs.filter((output) => output !== placed[0])) {
				expect(item).toMatchObject({ id: placed[0].id, skipped: true, outcome: 'skipped' });
				expect(item.skipReason).toBe(
					`Execution ${placerId}, running at the same time, placed the call to +14155550123 (call ${placed[0].id}), so it was not called again`,
				);
			}
		},
	);

	test('the first execution gets no answer: the one that waited fails with "may have been placed", nothing dialled again', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 300, error_rate: 1, status: 500 });
		const parameters = create({}, { skipCalledWithinMinutes: 0 });

		const runs = await Promise.all(
			['exec-1', 'exec-2'].map((id) =>
				execution(id, { parameters, input: [{ to: '+14155550123' }] }),
			),
		);

		const dials = (await wire(sandbox)).filter((r) => r.method === 'POST' && r.path === '/call');
		expect(dials).toHaveLength(1);
		const messages = runs.map((run) => run.error?.message);
		expect(messages).toContainEqual(
			expect.stringMatching(
				/^The call to \+14155550123 may have been placed by execution exec-[12], running at the same time: not placed again/,
			),
		);
	});

	test('the first execution was refused (nothing sent): the one that waited dials', async () => {
		await sandbox.faults({
			match: 'POST /call',
			latency_ms: 300,
			error_rate: 1,
			status: 400,
			times: 1,
		});

		const runs = await Promise.all(
			['exec-1', 'exec-2'].map((id) =>
				execution(id, { input: [{ to: '+14155550123' }], continueOnFail: true }),
			),
		);

		expect(await dialled()).toEqual({ '+14155550123': 1 });
		const outcomes = runs.map((run) => jsonOf(run)[0].outcome).sort();
		expect(outcomes).toEqual(['failed', 'placed']);
	});

	test('the same lead twice in one input, skip window 0, Calls at Once 2: placed once (issue 30)', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 300 });

		const result = await execution('exec-1', {
			parameters: create({ callsAtOnce: 2 }, { skipCalledWithinMinutes: 0 }),
			input: [{ to: '+14155550123' }, { to: '+14155550123' }],
		});

		expect(await dialled()).toEqual({ '+14155550123': 1 });
		expect(jsonOf(result).map((item) => item.outcome)).toEqual(['placed', 'skipped']);
	});
});

test('two items of the same attempt (the same previous call ID), skip window 0, Calls at Once 2: one dial (issue 30)', async () => {
	const [agent] = (await sandbox.api('GET', '/agents')).body.agents as any[];
	const previous = await placeCall(sandbox, agent, { to: '+14155550123' });
	await endCall(sandbox, previous.id, 'no-answer');
	await sandbox.clearRequests();
	await sandbox.faults({ match: 'POST /call', latency_ms: 300 });
	const lead = { to: '+14155550123', attempt: 2, call_id: previous.id };

	const result = await execution('exec-1', {
		parameters: create(
			{
				callsAtOnce: 2,
				waitForEnd: true,
				maxWaitMinutes: 0.01,
				firstCheckSeconds: 1,
				callAgain: { settings: { attempts: 3, minutesBetween: 30 } },
			},
			{ skipCalledWithinMinutes: 0 },
		),
		input: [lead, lead],
	});

	expect(await dialled()).toEqual({ '+14155550123': 1 });
	expect(jsonOf(result).map((item) => item.outcome)).toEqual(['placed', 'skipped']);
}, 30_000);

describe('tool calls, each its own execution (MCP Server Trigger)', () => {
	test('three tool calls at once for one number, POST /call taking 800 ms: phoned once', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 800 });
		const tools = await Promise.all(
			['mcp-1', 'mcp-2', 'mcp-3'].map((id) =>
				toolExecution(credentials(), asTool({ maxCallsPerRun: 1 }), {}, id),
			),
		);

		const answers = await Promise.all(tools.map((tool) => tool.use({ To: '+14155550123' })));

		expect(await dialled()).toEqual({ '+14155550123': 1 });
		const outputs = answers.map((answer) => JSON.parse(answer)[0]);
		expect(outputs.filter((item) => item.skipped === true)).toHaveLength(2);
	});

	// The process counts its calls per account until the list shows them: a sandbox reset would hide them,
	// so each budget test has an account (a sandbox) of its own.
	const ownAccount = useSandbox({ callDurationMs: 60_000 });
	const parallelAccount = useSandbox({ callDurationMs: 60_000 });

	test('tool calls in a row to seven allowed numbers: the budget (5 an hour by default) stops the sixth', async () => {
		await createAgent(ownAccount, { name: 'Front Desk' });
		const refusals: string[] = [];
		for (const [index, lead] of leads(7).entries()) {
			const tool = await toolExecution(credentials(ownAccount), asTool(), {}, `mcp-${index}`);
			await tool.use({ To: lead.to }).catch((error: Error) => refusals.push(error.message));
		}

		expect(Object.keys(await dialled(ownAccount))).toHaveLength(5);
		expect(refusals).toHaveLength(2);
		expect(refusals[0]).toMatch(
			/^Max Calls per Hour \(5\) is reached: the agent has 5 calls in the last hour, so the call to \+14155551006 was not placed; the next call is possible at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/,
		);
	});

	test('seven tool calls at once to seven allowed numbers: five placed, never more', async () => {
		await createAgent(parallelAccount, { name: 'Front Desk' });
		await parallelAccount.faults({ match: 'POST /call', latency_ms: 200 });
		const tools = await Promise.all(
			leads(7).map((_, index) =>
				toolExecution(credentials(parallelAccount), asTool(), {}, `mcp-${index}`),
			),
		);

		const outcomes = await Promise.allSettled(
			tools.map((tool, index) => tool.use({ To: leads(7)[index].to })),
		);

		expect(Object.keys(await dialled(parallelAccount))).toHaveLength(5);
		expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
	});
});

describe('a webhook delivered twice at the same moment', () => {
	test('20 leads, two executions at once, Calls at Once 5: each number phoned once', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 100 });
		const parameters = create({ callsAtOnce: 5 });

		const runs = await Promise.all(
			['webhook-1', 'webhook-2'].map((id) => execution(id, { parameters, input: leads(20) })),
		);

		const counts = await dialled();
		expect(Object.keys(counts)).toHaveLength(20);
		expect(Object.values(counts).every((count) => count === 1)).toBe(true);
		const [first, second] = runs.map(jsonOf);
		for (let index = 0; index < 20; index++) {
			expect([first[index].outcome, second[index].outcome].sort()).toEqual(['placed', 'skipped']);
			expect(first[index].id).toBe(second[index].id);
		}
	}, 60_000);
});

describe('node version 1.4: Calls at Once and the pace are the node’s, not one run’s', () => {
	const waiting = useSandbox({ callDurationMs: 1_500 });

	test('two passes overlapping, Calls at Once 3, waiting for calls to end: never more than 3 in progress', async () => {
		await createAgent(waiting, { name: 'Front Desk' });
		const parameters = create({
			callsAtOnce: 3,
			waitForEnd: true,
			maxWaitMinutes: 1,
			firstCheckSeconds: 1,
		});

		const passes = [leads(6, 1001), leads(6, 2001)].map((input, pass) =>
			execution(`pass-${pass}`, { parameters, input, typeVersion: 1.4 }, waiting),
		);
		const outputs = (await Promise.all(passes)).map(jsonOf).flat();

		expect(outputs.every((item) => item.outcome !== 'failed')).toBe(true);
		const load = (await waiting.control('GET', '/call-load')).body.accounts[0];
		expect(load).toMatchObject({ calls_created: 12, max_in_progress: 3 });
	}, 60_000);

	test('two executions at once, Max New Calls per Minute 3: 3 calls in any minute, all of them placed', async () => {
		setClock('2026-03-09T14:00:00Z');
		try {
			const parameters = create({ maxCallsPerMinute: 3, callsAtOnce: 3 });
			const runs = [leads(3, 1001), leads(3, 2001)].map((input, index) =>
				execution(`exec-${index}`, { parameters, input, typeVersion: 1.4 }),
			);
			await waitFor('three calls', async () =>
				Object.keys(await dialled()).length >= 3 ? true : undefined,
			);
			// Both executions' pace waits step once a second: two steps, and still three calls.
			await sleep(2_500);
			expect(Object.keys(await dialled())).toHaveLength(3);
			jumpClock(62_000);
			const outputs = (await Promise.all(runs)).map(jsonOf).flat();

			expect(outputs.map((item) => item.outcome)).toEqual(Array(6).fill('placed'));
			const load = (await sandbox.control('GET', '/call-load')).body.accounts[0];
			expect(load).toMatchObject({ calls_created: 6, max_created_in_60s: 3 });
		} finally {
			restoreClock();
		}
	}, 60_000);
});

describe('node version 1.4: what an execution leaves to the next one (found by review)', () => {
	test('Calls at Once 1: a call past Max Wait keeps the node’s slot for its Slot Hold though its run has no item left', async () => {
		const parameters = create({
			callsAtOnce: 1,
			waitForEnd: true,
			maxWaitMinutes: 0.01,
			firstCheckSeconds: 1,
			slotHoldMinutes: 0.1,
		});
		const first = execution('exec-1', { parameters, input: leads(1, 1001), typeVersion: 1.4 });
		await waitFor('the first call', async () =>
			(await dialled())['+14155551001'] === 1 ? true : undefined,
		);
		const second = execution('exec-2', { parameters, input: leads(1, 2001), typeVersion: 1.4 });
		// The first call's Max Wait (0.6 s) is over; its Slot Hold (6 s) is not: the second waits.
		await sleep(3_000);
		expect(await dialled()).toEqual({ '+14155551001': 1 });

		const [a, b] = (await Promise.all([first, second])).map(jsonOf);
		expect(a[0]).toMatchObject({ outcome: 'placed', ended: false, slot_released: true });
		expect(b[0].outcome).toBe('placed');
		expect(await dialled()).toEqual({ '+14155551001': 1, '+14155552001': 1 });
	}, 60_000);

	test('Max New Calls per Minute 2, two executions one after the other: 2 calls in any minute', async () => {
		setClock('2026-03-09T15:00:00Z');
		try {
			const parameters = create({ maxCallsPerMinute: 2, callsAtOnce: 2 });
			const first = await execution('exec-1', {
				parameters,
				input: leads(2, 1001),
				typeVersion: 1.4,
			});
			expect(jsonOf(first).map((item) => item.outcome)).toEqual(['placed', 'placed']);
			const second = execution('exec-2', { parameters, input: leads(2, 2001), typeVersion: 1.4 });
			// The pace waits step once a second: two steps, and still the first execution's two calls.
			await sleep(2_500);
			expect(Object.keys(await dialled())).toHaveLength(2);
			jumpClock(62_000);

			expect(jsonOf(await second).map((item) => item.outcome)).toEqual(['placed', 'placed']);
			const load = (await sandbox.control('GET', '/call-load')).body.accounts[0];
			expect(load).toMatchObject({ calls_created: 4, max_created_in_60s: 2 });
		} finally {
			restoreClock();
		}
	}, 60_000);
});

describe('Max Calls per Hour, counted from the call list', () => {
	test('read across processes: a fresh n8n process (module state) sees the hour’s calls and refuses', async () => {
		const [agent] = (await sandbox.api('GET', '/agents')).body.agents as any[];
		// Another process placed two calls (the service's list is all they share).
		await placeCall(sandbox, agent, { to: '+14155559001' });
		await placeCall(sandbox, agent, { to: '+14155559002' });
		await sandbox.clearRequests();
		let result: NodeRun | undefined;
		// Another n8n process: the package loaded afresh, so nothing of this module's memory is shared.
		await jest.isolateModulesAsync(async () => {
			const fresh = require('../../support/node.cts') as typeof import('../../support/node.cts');
			result = await fresh.runNode({
				parameters: create({ maxCallsPerHour: 2 }),
				credentials: credentials(),
				typeVersion: 1.3,
				executionId: 'other-process',
				input: [{ to: '+14155550123' }],
			});
		});

		expect(result?.error?.message).toMatch(
			/^Max Calls per Hour \(2\) is reached: the agent has 2 calls in the last hour, so the call to \+14155550123 was not placed; the next call is possible at /,
		);
		expect(await dialled()).toEqual({});
	}, 60_000);

	test('a call list that cannot be read fails closed: nothing dialled, the error names the budget', async () => {
		await sandbox.faults({ match: 'GET /calls', error_rate: 1, status: 400 });

		// The skip window reads the list too (before the budget): at 0 the budget is its only reader.
		const result = await execution('exec-1', {
			parameters: create({ maxCallsPerHour: 10 }, { skipCalledWithinMinutes: 0 }),
			input: [{ to: '+14155550123' }],
		});

		expect(result.error?.message).toMatch(
			/^Max Calls per Hour \(10\) could not be checked: the agent's call list could not be read/,
		);
		expect(await dialled()).toEqual({});
	});

	test('From given by phone number: the budget counts the agent that owns it', async () => {
		const agents = (await sandbox.api('GET', '/agents')).body.agents as any[];
		await placeCall(sandbox, agents[0], { to: '+14155559001' });
		await sandbox.clearRequests();

		const result = await execution('exec-1', {
			parameters: {
				...create({ maxCallsPerHour: 1 }),
				from: rl(agents[0].phone_number, 'phoneNumber'),
			},
			input: [{ to: '+14155550123' }],
		});

		expect(result.error?.message).toMatch(/^Max Calls per Hour \(1\) is reached/);
		expect(await dialled()).toEqual({});
	});

	test("From by phone number, two agents' numbers in one run: each item's budget is its own agent's", async () => {
		const [full] = (await sandbox.api('GET', '/agents')).body.agents as any[];
		const free = await createAgent(sandbox, { name: 'Second Desk' });
		await placeCall(sandbox, full, { to: '+14155559002' });
		await sandbox.clearRequests();

		const result = await execution('exec-1', {
			parameters: {
				...create({ maxCallsPerHour: 1 }, { skipCalledWithinMinutes: 0 }),
				from: rl('={{ $json.from }}', 'phoneNumber'),
			},
			input: [
				{ from: full.phone_number, to: '+14155550131' },
				{ from: free.phone_number, to: '+14155550132' },
			],
			continueOnFail: true,
		});

		const [fromFull, fromFree] = jsonOf(result);
		expect(fromFull.error).toMatch(/^Max Calls per Hour \(1\) is reached/);
		expect(fromFree).toMatchObject({ to: '+14155550132', agent_id: String(free.id) });
		expect(await dialled()).toEqual({ '+14155550132': 1 });
	});

	test('From by a phone number no agent owns: the budget cannot be counted, nothing dialled, the error says what to do', async () => {
		const result = await execution('exec-1', {
			parameters: {
				...create({ maxCallsPerHour: 1 }),
				from: rl('+14150000009', 'phoneNumber'),
			},
			input: [{ to: '+14155550133' }],
		});

		expect(result.error?.message).toBe(
			'Max Calls per Hour (1) cannot be counted: no agent of this account calls from +14150000009 [item 0]',
		);
		expect(result.error?.description).toMatch(
			/^Max Calls per Hour counts the agent's calls\. Give From as the agent/,
		);
		expect(await dialled()).toEqual({});
	});
});

describe('Max Calls per Hour: a call the service does not hold', () => {
	afterEach(restoreClock);

	test('no longer counts once the list has long not shown it and the service answers 404 for it', async () => {
		// A minute on: the process's memory of earlier tests' calls (reset away) is read by ID and forgotten.
		setClock(new Date(Date.now() + 61_000).toISOString());
		const parameters = create({ maxCallsPerHour: 1 });
		const first = await execution('exec-1', { parameters, input: [{ to: '+14155550101' }] });
		expect(jsonOf(first)[0].outcome).toBe('placed');
		// The service loses the call (a reset): the same agent again, no call in its list.
		await sandbox.reset();
		await createAgent(sandbox, { name: 'Front Desk' });
		jumpClock(61_000);

		const second = await execution('exec-2', { parameters, input: [{ to: '+14155550102' }] });

		expect(jsonOf(second)[0].outcome).toBe('placed');
		expect(await dialled()).toEqual({ '+14155550102': 1 });
	});
});

describe('memory stays bounded: nothing outlives its use', () => {
	// The package's own modules, as n8n loaded them for the runs above (the same module instances).
	const gate = require('../../../dist/nodes/VoiceAgent/actions/call/create/gate/numberGate.js');
	const slots = require('../../../dist/nodes/VoiceAgent/actions/call/create/batch/nodeSlots.js');

	test('a number is in the gate while its call is decided and placed, a node share while its executions run; then neither', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 500 });
		const parameters = create({ callsAtOnce: 2 });

		const runs = ['exec-1', 'exec-2'].map((id) =>
			execution(id, { parameters, input: leads(3), typeVersion: 1.4 }),
		);
		const being = () => gate.gateCounts().deciding + gate.gateCounts().placing;
		await waitFor('calls being placed', () => (being() > 0 ? true : undefined));
		expect(slots.nodesSharing()).toBe(1);
		await Promise.all(runs);

		expect(gate.gateCounts()).toMatchObject({ deciding: 0, placing: 0, waits: 0 });
		expect(slots.nodesSharing()).toBe(0);
		expect(Object.values(await dialled())).toEqual([1, 1, 1]);
	});
});
