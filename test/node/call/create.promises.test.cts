/**
 * Call → Create's promises on the paths an outside review found broken, one test per finding: any 2xx
 * is "placed" whatever its body, concurrent uses of the tool claim a number before either looks anything
 * up, Calls at Once holds calls past Max Wait, the pace survives re-runs, every item is checked (agents
 * included) before the first call, and calls that end with a status nobody listed have ended. Run in
 * n8n-core's real engine (the tool through n8n-core's own tool invocation) against the sandbox, whose
 * variants switch what the contract leaves open.
 */
import { allCalls, createAgent, wireLines, dialsByNumber } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type NodeRun, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { toolExecution } from '../../support/toolUse.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };

function create(options: Record<string, unknown> = {}, from = rl('Front Desk', 'name')) {
	return {
		resource: 'call',
		operation: 'create',
		from,
		to: '={{ $json.to }}',
		options: { allowedDestinations: '+1415', ...options },
	};
}

function run(more: Partial<RunNodeOptions>) {
	return runNode({
		parameters: create(),
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: 1.1,
		...more,
	});
}

/** How many times each number was phoned (POST /call answered 2xx). */
const dialled = () => dialsByNumber(sandbox);

const credentials = () => ({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
const callLoad = async () => (await sandbox.control('GET', '/call-load')).body.accounts[0];
const hintsOf = (result: NodeRun) =>
	(result.run.data.resultData.runData['Voice Agent']?.[0]?.hints ?? []).map((hint) => hint.message);

beforeEach(async () => {
	await createAgent(sandbox, { name: 'Front Desk' });
	await sandbox.clearRequests();
});

describe('a 2xx to POST /call is "placed", whatever its body', () => {
	test.each(['status_call_id', 'empty_202', 'empty_201', 'null'] as const)(
		'%s, Retry On Fail (3 tries), the next item refused at run time: the first number is phoned once',
		async (shape) => {
			await sandbox.variants({ create_answer: shape });

			const result = await run({
				parameters: create({ maxCallsPerRun: 1 }),
				settings: RETRY_ON_FAIL,
				input: [{ to: '+14155550101' }, { to: '+14155550102' }],
			});

			expect(result.error?.message).toMatch(/^Max Calls per Run \(1\) is reached: .* \[item 1\]$/);
			expect(await dialled()).toEqual({ '+14155550101': 1 });
			expect(await allCalls(sandbox)).toHaveLength(1);
		},
	);

	test('On Error → Continue: the item outputs the call the list shows, and the hint counts it placed', async () => {
		await sandbox.variants({ create_answer: 'status_call_id' });

		const result = await run({
			parameters: create({ maxCallsPerRun: 1 }),
			continueOnFail: true,
			input: [{ to: '+14155550101' }, { to: '+14155550102' }],
		});

		const [placed] = await allCalls(sandbox);
		const [first, second] = jsonOf(result);
		expect(first).toMatchObject({ id: placed.id, to: '+14155550101', status: 'in_progress' });
		expect(second.error).toMatch(/^Max Calls per Run \(1\) is reached/);
		expect(hintsOf(result)).toEqual(['Calls: 1 placed, 1 failed']);
	});

	test('a 2xx whose call is not in the list: the item fails saying it was placed, and no try dials it again', async () => {
		await sandbox.variants({ create_answer: 'empty_202' });
		// The call list fails while the node looks for the call (after its first read before dialling).
		await sandbox.faults({ match: 'GET /calls', skip: 1, error_rate: 1, status: 400 });

		const result = await run({ settings: RETRY_ON_FAIL, input: [{ to: '+14155550101' }] });

		expect(result.error?.message).toMatch(
			/^The call to \+14155550101 was placed(,| by an earlier run of this node,) but the service's answer did not name it/,
		);
		expect(await dialled()).toEqual({ '+14155550101': 1 });
	});

	test('as a tool with a null answer: the Max Calls slot stays taken, the next use places nothing', async () => {
		await sandbox.variants({ create_answer: 'null' });
		const execution = await toolExecution(credentials(), {
			...create({ maxCallsPerRun: 1 }),
			to: "={{ $fromAI('To', 'The number to call', 'string') }}",
		});

		await execution.use({ To: '+14155550101' });
		await expect(execution.use({ To: '+14155550102' })).rejects.toThrow(
			/Max Calls per Run \(1\) is reached/,
		);
		expect(await dialled()).toEqual({ '+14155550101': 1 });
	});
});

describe('uses of the tool at the same time (the AI Agent at version 2.2 runs a step together)', () => {
	const byModel = (options: Record<string, unknown>) => ({
		...create(options),
		to: "={{ $fromAI('To', 'The number to call', 'string') }}",
	});

	test('the same allowed number twice in one step, Max Calls per Run 5: phoned once', async () => {
		const execution = await toolExecution(credentials(), byModel({ maxCallsPerRun: 5 }));

		const answers = await Promise.all([
			execution.use({ To: '+14155550123' }),
			execution.use({ To: '+14155550123' }),
		]);

		expect(await dialled()).toEqual({ '+14155550123': 1 });
		const [first, second] = answers.map((answer) => JSON.parse(answer)[0]);
		expect(second.id).toBe(first.id);
		expect([first.skipped, second.skipped].filter(Boolean)).toHaveLength(1);
	});

	test('three numbers in one step with the limit at 1: one is phoned, the others are refused', async () => {
		const execution = await toolExecution(credentials(), byModel({ maxCallsPerRun: 1 }));

		const outcomes = await Promise.allSettled(
			['+14155550101', '+14155550102', '+14155550103'].map((To) => execution.use({ To })),
		);

		expect(Object.values(await dialled())).toEqual([1]);
		expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
	});
});

describe('Calls at Once while waiting: a slot is free only once its call was seen to end', () => {
	// Calls of 2.5 s, Max Wait 0.6 s: every wait ends before its call does.
	const waitingSandbox = useSandbox({ callDurationMs: 2_500 });

	async function runWaiting(more: Partial<RunNodeOptions>, options: Record<string, unknown> = {}) {
		await createAgent(waitingSandbox, { name: 'Front Desk' });
		const leads = Array.from({ length: 6 }, (_, n) => ({ to: `+1415555${1001 + n}` }));
		return await runNode({
			parameters: create({
				callsAtOnce: 2,
				waitForEnd: true,
				maxWaitMinutes: 0.01,
				firstCheckSeconds: 1,
				...options,
			}),
			credentials: { apiKey: waitingSandbox.apiKey, baseUrl: waitingSandbox.baseUrl },
			typeVersion: 1.1,
			input: leads,
			...more,
		});
	}
	const loadOf = async () => (await waitingSandbox.control('GET', '/call-load')).body.accounts[0];

	test('six items, Calls at Once 2, calls longer than Max Wait: never more than 2 in progress', async () => {
		const result = await runWaiting({});

		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(6);
		expect(outputs.every((call) => call.ended === false)).toBe(true);
		expect(await loadOf()).toMatchObject({ calls_created: 6, max_in_progress: 2 });
	}, 60_000);

	test('items that fail at Max Wait (On Error → Continue) keep their slots too', async () => {
		const result = await runWaiting({ continueOnFail: true }, { onMaxWait: 'fail' });

		expect(jsonOf(result).every((item) => /had not ended after/.test(item.error))).toBe(true);
		expect(await loadOf()).toMatchObject({ calls_created: 6, max_in_progress: 2 });
	}, 60_000);

	test('a fatal stop and Retry On Fail: the next try starts no call beside those still in progress', async () => {
		// The third POST /call is refused once: the node stops while the first two calls go on.
		await waitingSandbox.faults({
			match: 'POST /call',
			skip: 2,
			times: 1,
			error_rate: 1,
			status: 400,
		});

		const result = await runWaiting({ settings: RETRY_ON_FAIL });

		expect(jsonOf(result)).toHaveLength(6);
		expect(await loadOf()).toMatchObject({ calls_created: 6, max_in_progress: 2 });
	}, 90_000);
});

test('Calls at Once without waiting: at most that many calls are being placed at once', async () => {
	await sandbox.faults({ match: 'POST /call', latency_ms: 150 });
	await sandbox.control('DELETE', '/traffic');
	const leads = Array.from({ length: 20 }, (_, n) => ({ to: `+1415555${1001 + n}` }));

	const result = await run({ parameters: create({ callsAtOnce: 4 }), input: leads });

	expect(jsonOf(result)).toHaveLength(20);
	expect((await sandbox.control('GET', '/traffic')).body.max_in_flight).toBeLessThanOrEqual(4);
});

describe('Max New Calls per Minute holds across re-runs of the node in one execution', () => {
	const posts = async () =>
		(await wireLines(sandbox)).filter((line) => line.startsWith('POST /call ')).length;
	const cancelAfterTwo = () =>
		waitFor('two calls placed', async () => ((await posts()) >= 2 ? true : undefined)).then(() =>
			sleep(2_000),
		);

	test('Retry On Fail after the third lookup failed: the next try waits for the window too', async () => {
		// The third item's look at the call list is refused once: the node fails, n8n tries it again.
		await sandbox.faults({ match: 'GET /calls', skip: 2, times: 1, error_rate: 1, status: 400 });

		const result = await run({
			parameters: create({ maxCallsPerMinute: 2 }),
			settings: RETRY_ON_FAIL,
			input: [{ to: '+14155550101' }, { to: '+14155550102' }, { to: '+14155550103' }],
			cancelWhen: cancelAfterTwo(),
		});

		expect(result.error?.message).toBe('The execution was cancelled');
		expect(await posts()).toBe(2);
		expect((await callLoad()).max_created_in_60s).toBe(2);
	});

	test('a loop that runs the node again goes on counting', async () => {
		const result = await run({
			parameters: create({ maxCallsPerMinute: 2 }),
			input: [{ to: '+14155550101' }, { to: '+14155550102' }],
			laterInputs: [[{ to: '+14155550103' }, { to: '+14155550104' }]],
			cancelWhen: cancelAfterTwo(),
		});

		expect(result.error?.message).toBe('The execution was cancelled');
		expect(await posts()).toBe(2);
	});
});

test("every item is checked before the first call: item 3's empty agent ID phones nobody", async () => {
	const agent = await createAgent(sandbox, { name: 'Night Desk' });
	const input = [1, 2, 3, 4, 5].map((n) => ({
		to: `+1415555010${n}`,
		agent: n === 3 ? '' : agent.id,
	}));

	const result = await run({ parameters: create({}, rl('={{ $json.agent }}', 'id')), input });

	expect(result.error?.message).toBe('From (Agent) must not be empty [item 2]');
	expect(await dialled()).toEqual({});
});

test('an agent name that matches nothing, in the last item, phones nobody', async () => {
	const input = [{ to: '+14155550101' }, { to: '+14155550102', agent: 'Nobody' }];

	const result = await run({
		parameters: create({}, rl('={{ $json.agent ?? "Front Desk" }}', 'name')),
		input,
	});

	expect(result.error?.message).toMatch(/^No agent is named "Nobody": .* \[item 1\]$/);
	expect(await dialled()).toEqual({});
});

test('a call that ends with a status nobody listed has ended: the wait ends at its next check', async () => {
	const running = run({
		parameters: create({ waitForEnd: true, firstCheckSeconds: 1 }),
		input: [{ to: '+14155550101' }],
	});
	const placed = await waitFor('the call placed', async () => (await allCalls(sandbox))[0]);
	await sandbox.control('POST', `/calls/${placed.id}/complete`, { status: 'no-answer' });

	const [ended] = jsonOf(await running);
	expect(ended).toMatchObject({ id: placed.id, status: 'no-answer', ended: true });
});
