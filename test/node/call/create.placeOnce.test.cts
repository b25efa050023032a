/**
 * Call → Create places each item's call once, whatever runs the node again within an execution: n8n's
 * Retry On Fail (which runs the whole node again with all its items), the retry n8n makes when On Error
 * → Continue puts an error first, a loop that runs the node again, and *Retry execution*. Run in n8n-core's
 * real engine against the sandbox; the sandbox's request log counts the calls placed.
 */
import { allCalls, createAgent, wire } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

// n8n takes a wait of 0 as its default of 1 second.
const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };

// An item fails at run time, after the items before it were placed, when Max Calls per Run is reached
// (input that is wrong, an agent that does not exist included, fails before any call: see create.batch).
function createCall(maxCallsPerRun?: number, allowedDestinations = '+1415') {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		options: { allowedDestinations, ...(maxCallsPerRun === undefined ? {} : { maxCallsPerRun }) },
	};
}

function run(options: Partial<RunNodeOptions>, maxCallsPerRun?: number) {
	return runNode({
		parameters: createCall(maxCallsPerRun),
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: 1.1,
		...options,
	});
}

/** How many times each number was dialled (POST /call answered 200), from the sandbox's request log. */
async function dialled(): Promise<Record<string, number>> {
	const counts: Record<string, number> = {};
	for (const request of await wire(sandbox)) {
		if (request.method !== 'POST' || request.path !== '/call' || request.status !== 200) continue;
		const to = (request.body as { to: string }).to;
		counts[to] = (counts[to] ?? 0) + 1;
	}
	return counts;
}

describe('Retry On Fail', () => {
	test('an item that fails at run time fails the node three times; each other number is phoned once', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const result = await run(
			{
				settings: RETRY_ON_FAIL,
				input: [{ to: '+14155550101' }, { to: '+14155550102' }, { to: '+14155550103' }],
			},
			2,
		);

		expect(result.error?.message).toBe(
			'Max Calls per Run (2) is reached: this node already placed 2 calls in this execution, so the call to +14155550103 was not placed [item 2]',
		);
		expect(await dialled()).toEqual({ '+14155550101': 1, '+14155550102': 1 });
		expect(await allCalls(sandbox)).toHaveLength(2);
	});

	test('On Error → Continue with the first item refused: n8n retries, and the other numbers are phoned once', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const result = await run({
			settings: RETRY_ON_FAIL,
			continueOnFail: true,
			input: [{ to: '+12125550101' }, { to: '+14155550102' }, { to: '+14155550103' }],
		});

		const [refused, second, third] = jsonOf(result);
		expect(refused).toEqual({
			error:
				'To +12125550101 is not among the Allowed Destinations (+1415): no call was placed [item 0]',
		});
		expect(await dialled()).toEqual({ '+14155550102': 1, '+14155550103': 1 });
		// The remembered calls come out as the calls placed: in full, not marked as skipped.
		expect(second).toMatchObject({ to: '+14155550102', status: 'in_progress' });
		expect(third).toMatchObject({ to: '+14155550103', status: 'in_progress' });
		expect(second).not.toHaveProperty('skipped');
		const calls = await allCalls(sandbox);
		expect([second.id, third.id].sort()).toEqual(calls.map((call) => call.id).sort());
	});

	test('a call the service refused is tried again by the next try, and placed once', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		// The first POST /call is refused before the service acts: nothing was placed, so a retry may place it.
		await sandbox.faults({ match: 'POST /call', error_rate: 1, status: 400, times: 1 });

		const result = await run({ settings: RETRY_ON_FAIL, input: [{ to: '+14155550101' }] });

		expect(jsonOf(result)[0]).toMatchObject({ to: '+14155550101', status: 'in_progress' });
		expect(await dialled()).toEqual({ '+14155550101': 1 });
	});

	test('a call whose outcome stayed unknown is never dialled again by a later try', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		// Every POST /call fails with a 500 and the call is not in the list: the outcome is unknown.
		await sandbox.faults({ match: 'POST /call', error_rate: 1, status: 500 });

		const result = await run({ settings: RETRY_ON_FAIL, input: [{ to: '+14155550101' }] });

		expect(result.error?.message).toBe(
			'The call to +14155550101 may have been placed by an earlier run of this node: not placed again, check the call list [item 0]',
		);
		const dials = (await wire(sandbox)).filter((r) => r.method === 'POST' && r.path === '/call');
		expect(dials).toHaveLength(1);
	});
});

describe('a node that runs several times in one execution', () => {
	test('each run places its own items: the same item index in a later run is another call', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const result = await run({
			input: [{ to: '+14155550101' }],
			laterInputs: [[{ to: '+14155550102' }], [{ to: '+14155550103' }]],
		});

		const runs = result.run.data.resultData.runData['Voice Agent'];
		expect(runs.map((task) => task.data?.main[0]?.[0].json.to)).toEqual([
			'+14155550101',
			'+14155550102',
			'+14155550103',
		]);
		expect(await dialled()).toEqual({ '+14155550101': 1, '+14155550102': 1, '+14155550103': 1 });
		expect(runs.every((task) => task.data?.main[0]?.[0].json.skipped === undefined)).toBe(true);
	});

	test('a later run for a number whose call is still in progress (issue 34, every node version): skipped, naming that call', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const result = await run({
			input: [{ to: '+14155550104' }],
			laterInputs: [[{ to: '+14155550104' }]],
		});

		const [first, later] = result.run.data.resultData.runData['Voice Agent'].map(
			(task) => task.data?.main[0]?.[0].json as any,
		);
		expect(await dialled()).toEqual({ '+14155550104': 1 });
		expect(later).toMatchObject({ id: first.id, skipped: true });
		expect(later.skipReason).toBe(
			`An earlier run of this node in this execution placed the call to +14155550104 (call ${first.id}), so it was not called again`,
		);
	});
});

describe("n8n's Retry execution", () => {
	test('goes on from the saved state: the calls of the failed run are output as skipped, not placed again', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		const input = [{ to: '+14155550101' }, { to: '+14155550102' }];
		const failed = await run({ input, executionId: '101' }, 1);
		expect(failed.error?.message).toMatch(/^Max Calls per Run \(1\) is reached: .* \[item 1\]$/);

		// The user raises the limit and retries the execution with the saved workflow.
		const retried = await run({ input, executionId: '102', retryOf: failed.run }, 2);

		const [first, second] = jsonOf(retried);
		expect(first).toMatchObject({
			to: '+14155550101',
			skipped: true,
			skipReason:
				'Execution 101, which this execution retries, placed this call already, so it was not placed again',
		});
		expect(second).toMatchObject({ to: '+14155550102', status: 'in_progress' });
		expect(second).not.toHaveProperty('skipped');
		expect(await dialled()).toEqual({ '+14155550101': 1, '+14155550102': 1 });
	});
});

describe("Retry execution after only From's picker changed: the same agent is the same call", () => {
	type Picker = 'list' | 'id' | 'name' | 'phoneNumber';
	const from = (agent: any, mode: Picker) =>
		rl(mode === 'name' ? agent.name : mode === 'phoneNumber' ? agent.phone_number : agent.id, mode);

	/** A failed execution (Max Calls per Run 1 refused the second lead) and its retry, From changed between. */
	async function retryWithPicker(before: Picker, after: Picker, saved = (_run: any) => {}) {
		const agent = await createAgent(sandbox, { name: 'Front Desk' });
		const input = [{ to: '+14155550101' }, { to: '+14155550102' }];
		const parameters = (mode: Picker, maxCallsPerRun: number) => ({
			...createCall(maxCallsPerRun),
			from: from(agent, mode),
		});
		const failed = await run({ parameters: parameters(before, 1), input, executionId: '301' });
		expect(failed.error?.message).toMatch(/^Max Calls per Run \(1\) is reached: .* \[item 1\]$/);
		saved(failed.run);
		const retried = await run({
			parameters: parameters(after, 2),
			input,
			executionId: '302',
			retryOf: failed.run,
		});
		return jsonOf(retried);
	}

	test.each([
		['list', 'id'],
		['name', 'id'],
		['id', 'list'],
		['list', 'phoneNumber'],
		['phoneNumber', 'name'],
	] as const)('From %s → %s: the first lead is not dialled again', async (before, after) => {
		const [first, second] = await retryWithPicker(before, after);
		expect(first).toMatchObject({ to: '+14155550101', skipped: true });
		expect(first.skipReason).toMatch(
			/^Execution 301, which this execution retries, placed this call/,
		);
		expect(second).not.toHaveProperty('skipped');
		expect(await dialled()).toEqual({ '+14155550101': 1, '+14155550102': 1 });
	});

	test('a record saved before the agent was kept (its picker as mode:value) is still recognised', async () => {
		const [first] = await retryWithPicker('list', 'id', (saved) => {
			const nodeContext = saved.data.executionData.contextData['node:Voice Agent'];
			for (const record of Object.values(nodeContext.voiceAgentCalls.records) as any[]) {
				record.agent = `list:${record.agent}`;
				delete record.from;
			}
		});
		expect(first).toMatchObject({ to: '+14155550101', skipped: true });
		expect(await dialled()).toEqual({ '+14155550101': 1, '+14155550102': 1 });
	});
});
