/**
 * Call → Create's one gate per n8n process (issue 34), one test per in-process row of its table. Each
 * runs executions of the node in n8n-core's real engine at the same time, each with its own execution ID,
 * against the sandbox; its request log counts the calls placed. Every test calls numbers of its own: the
 * gate is the process's, and keeps a placed call while it may be in progress.
 */
import { createAgent, endCall, placeCall, dialsByNumber } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { toolExecution } from '../../support/toolUse.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });
const credentials = () => ({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });

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

function execution(id: string, more: Partial<RunNodeOptions>) {
	return runNode({
		parameters: create(),
		credentials: credentials(),
		typeVersion: 1.4,
		executionId: id,
		...more,
	});
}

/** How many times each number was phoned (POST /call answered 2xx). */
const dialled = () => dialsByNumber(sandbox);

const leads = (count: number, first: number) =>
	Array.from({ length: count }, (_, n) => ({ to: `+1415555${first + n}` }));

beforeEach(async () => {
	await createAgent(sandbox, { name: 'Front Desk' });
	await sandbox.clearRequests();
});

describe('issue 34, the rows of its table', () => {
	test('row 1: node 1.4, skip window 0, each lead delivered twice at once and again 300 ms apart: each phoned once', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 100 });
		const parameters = create({ callsAtOnce: 5 }, { skipCalledWithinMinutes: 0 });

		const atOnce = await Promise.all(
			['hook-1', 'hook-2'].map((id) => execution(id, { parameters, input: leads(10, 1101) })),
		);
		const first = execution('hook-3', { parameters, input: leads(10, 1201) });
		await sleep(300);
		const later = execution('hook-4', { parameters, input: leads(10, 1201) });
		const apart = await Promise.all([first, later]);

		const counts = await dialled();
		expect(Object.keys(counts)).toHaveLength(20);
		expect(Object.values(counts).every((count) => count === 1)).toBe(true);
		for (const [a, b] of [atOnce, apart].map((runs) => runs.map(jsonOf))) {
			for (let index = 0; index < 10; index++) {
				expect([a[index].outcome, b[index].outcome].sort()).toEqual(['placed', 'skipped']);
				expect(a[index].id).toBe(b[index].id);
			}
		}
	}, 60_000);

	test.each([false, true])(
		'row 3: node 1.4, Calls at Once 1, skip window 0, POST /call taking 800 ms, two executions for one number (Wait for the Call to End: %s): phoned once',
		async (waitForEnd) => {
			await sandbox.faults({ match: 'POST /call', latency_ms: 800 });
			const wait = waitForEnd ? { waitForEnd: true, maxWaitMinutes: 1, firstCheckSeconds: 1 } : {};
			const parameters = create({ callsAtOnce: 1, ...wait }, { skipCalledWithinMinutes: 0 });

			const runs = ['exec-1', 'exec-2'].map((id) =>
				execution(id, { parameters, input: [{ to: '+14155551301' }] }),
			);
			if (waitForEnd) {
				const callId = await waitFor('the call', async () => {
					const calls = (await sandbox.api('GET', '/calls')).body.calls as any[];
					return calls[0]?.id as string | undefined;
				});
				await sleep(1_000);
				await endCall(sandbox, callId);
			}
			const outputs = (await Promise.all(runs)).map((run) => jsonOf(run)[0]);

			expect(await dialled()).toEqual({ '+14155551301': 1 });
			const outcome = waitForEnd ? 'ended' : 'placed';
			expect(outputs.map((item) => item.outcome).sort()).toEqual([outcome, 'skipped']);
			const placed = outputs.find((item) => item.outcome === outcome);
			const skipped = outputs.find((item) => item.outcome === 'skipped');
			expect(skipped.skipReason).toMatch(
				new RegExp(
					`^Execution exec-[12], running at the same time, placed the call to \\+14155551301 \\(call ${placed.call_id}\\)`,
				),
			);
		},
		30_000,
	);

	test.each([0, 15])(
		'row 4: a call list that shows a new call 3 s late, skip window %i: a second execution 300 ms after the first outputs its call as skipped',
		async (window) => {
			await sandbox.variants({ list_lag_ms: 3_000 });
			const parameters = create({}, { skipCalledWithinMinutes: window });
			const to = `+141555514${window === 0 ? '01' : '15'}`;

			const first = jsonOf(await execution('exec-1', { parameters, input: [{ to }] }))[0];
			await sleep(300);
			const second = jsonOf(await execution('exec-2', { parameters, input: [{ to }] }))[0];

			expect(await dialled()).toEqual({ [to]: 1 });
			expect(first.outcome).toBe('placed');
			expect(second).toMatchObject({ outcome: 'skipped', skipped: true, id: first.id });
			expect(second.skipReason).toContain(`(call ${first.id})`);
		},
	);

	test('row 6: Calls at Once 2, the first POST /call taking 6 s; a stopped execution waiting for its number ends at once and holds no slot', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 6_000, times: 1 });
		const parameters = create({ callsAtOnce: 2 }, { skipCalledWithinMinutes: 0 });
		const startedAt = Date.now();

		const a = execution('exec-a', { parameters, input: [{ to: '+14155551601' }] });
		await sleep(200);
		const b = execution('exec-b', {
			parameters,
			input: [{ to: '+14155551601' }],
			cancelWhen: sleep(700),
		}).then((run) => ({ run, endedAfterMs: Date.now() - startedAt }));
		await sleep(300);
		const c = execution('exec-c', { parameters, input: [{ to: '+14155551602' }] });

		const other = await waitFor('the other number', async () =>
			(await dialled())['+14155551602'] === 1 ? Date.now() - startedAt : undefined,
		);
		expect(other).toBeLessThan(3_000);
		const stopped = await b;
		expect(stopped.endedAfterMs).toBeLessThan(2_000);
		expect(stopped.run.error?.message).toMatch(/cancel/i);
		expect(jsonOf(await c)[0].outcome).toBe('placed');
		expect(jsonOf(await a)[0].outcome).toBe('placed');
		expect(await dialled()).toEqual({ '+14155551601': 1, '+14155551602': 1 });
	}, 30_000);

	test('row 7: Calls at Once 2, one call in progress: a worker left without an item holds no slot, a third execution places its call', async () => {
		const parameters = create(
			{ callsAtOnce: 2, waitForEnd: true, maxWaitMinutes: 1, firstCheckSeconds: 1 },
			{ skipCalledWithinMinutes: 15 },
		);
		const a = execution('exec-a', { parameters, input: [{ to: '+14155551701' }] });
		const callA = await waitFor('the first call', async () => {
			const calls = (await sandbox.api('GET', '/calls')).body.calls as any[];
			return calls.find((call) => call.client_number === '+14155551701')?.id as string | undefined;
		});
		// B: its first lead is A's (skipped at once), its second a call it waits for.
		const b = execution('exec-b', {
			parameters,
			input: leads(2, 1701).map((lead, n) => (n === 0 ? lead : { to: '+14155551702' })),
		});
		await waitFor('B’s call', async () =>
			(await dialled())['+14155551702'] === 1 ? true : undefined,
		);
		await endCall(sandbox, callA);
		expect(jsonOf(await a)[0].outcome).toBe('ended');

		const c = execution('exec-c', { parameters, input: [{ to: '+14155551703' }] });
		await sleep(3_000);

		expect(await dialled()).toEqual({
			'+14155551701': 1,
			'+14155551702': 1,
			'+14155551703': 1,
		});
		const calls = (await sandbox.api('GET', '/calls')).body.calls as any[];
		for (const call of calls.filter((call) => call.status === 'in_progress'))
			await endCall(sandbox, call.id);
		expect(jsonOf(await b).map((item) => item.outcome)).toEqual(['skipped', 'ended']);
		expect(jsonOf(await c)[0].outcome).toBe('ended');
	}, 60_000);

	test('row 10: an MCP client asks again for a number called a minute ago, the hour’s budget used up: skipped, naming the call, not refused', async () => {
		const tool = (id: string) =>
			toolExecution(
				credentials(),
				create(
					{ maxCallsPerHour: 1 },
					{ to: "={{ $fromAI('To', 'The number to call', 'string') }}" },
				),
				{},
				id,
			);
		const first = JSON.parse(await (await tool('mcp-1')).use({ To: '+14155551001' }))[0];
		expect(first.id).toEqual(expect.any(String));

		const again = JSON.parse(await (await tool('mcp-2')).use({ To: '+14155551001' }))[0];

		expect(again).toMatchObject({ id: first.id, skipped: true });
		expect(again.skipReason).toContain(`(call ${first.id})`);
		expect(await dialled()).toEqual({ '+14155551001': 1 });
	});

	test('row 10, the call placed by another n8n process: the skip window finds it before the budget is charged', async () => {
		const [agent] = (await sandbox.api('GET', '/agents')).body.agents as any[];
		const earlier = await placeCall(sandbox, agent, { to: '+14155551002' });
		await sandbox.clearRequests();
		const tool = await toolExecution(
			credentials(),
			create(
				{ maxCallsPerHour: 1 },
				{ to: "={{ $fromAI('To', 'The number to call', 'string') }}" },
			),
			{},
			'mcp-3',
		);

		const again = JSON.parse(await tool.use({ To: '+14155551002' }))[0];

		expect(again).toMatchObject({ id: earlier.id, skipped: true });
		expect(again.skipReason).toMatch(
			new RegExp(`^Call ${earlier.id} of agent .* is still in progress`),
		);
		expect(await dialled()).toEqual({});
	});
});
