/**
 * Issue 41, rows 1 to 4: four paths past Call → Create's gate (gate/), found by an outside review. Each
 * test is a named regression: it failed on the code before the fix (the commit that fixed it says so).
 * Executions run in n8n-core's real engine, each with its own execution ID, against the sandbox; its
 * request log counts the calls placed (a 2xx or a 500 that came after the service placed the call).
 */
import { createAgent, placeCall } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox, type TestSandbox } from '../../support/sandbox.cts';
import { waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 300_000 });
const credentials = (of: TestSandbox = sandbox) => ({ apiKey: of.apiKey, baseUrl: of.baseUrl });

/** Every POST /call that created a call, whatever it answered (a 500 after placing it too), per number. */
async function dials(of: TestSandbox = sandbox): Promise<Record<string, number>> {
	const counts: Record<string, number> = {};
	for (const request of await of.requests()) {
		if (request.method !== 'POST' || request.path !== '/v1/call' || !request.created_call_id)
			continue;
		const to = (request.body as { to: string }).to;
		counts[to] = (counts[to] ?? 0) + 1;
	}
	return counts;
}

function create(more: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		options: { allowedDestinations: '+1415', ...options },
		...more,
	};
}

function execution(id: string, more: Partial<RunNodeOptions>, of: TestSandbox = sandbox) {
	return runNode({
		parameters: create(),
		credentials: credentials(of),
		typeVersion: 1.4,
		executionId: id,
		...more,
	});
}

afterEach(restoreClock);

const PROFILES = ['documented', 'live'] as const;

/** Ends a call now (a live one that still rings connects first): the sandbox's control endpoint. */
async function endNow(of: TestSandbox, id: string | number): Promise<void> {
	const { status } = await of.control('POST', `/calls/${id}/complete`, {});
	expect(status).toBe(200);
}

describe.each(PROFILES)(
	'issue 41 row 1 (%s profile): Call Again, attempt 2 of a lead fed again while the call list lags 20 s',
	(profile) => {
		const FAILING = '+14155550000';
		/** Its calls fail within seconds: the documented service ends them "failed", the live one never connects them. */
		const busy = useSandbox({ profile, callDurationMs: 800 });

		const callAgain = (context: string) =>
			create(
				{ context, skipCalledWithinMinutes: 15 },
				{
					waitForEnd: true,
					maxWaitMinutes: profile === 'live' ? 0.05 : 1,
					firstCheckSeconds: 1,
					callAgain: { settings: { attempts: 3, minutesBetween: 30 } },
				},
			);
		const failed = profile === 'live' ? { never_connected: true } : { status: 'failed' };

		/** Attempt 1's call, ended, and the lead as the lead store feeds attempt 2. */
		async function leadAtAttemptTwo() {
			const agent = await createAgent(busy, { name: 'Front Desk' });
			const previous = await placeCall(busy, agent, { to: FAILING, context: 'Renewal for Ada' });
			await endNow(busy, previous.id);
			await busy.clearRequests();
			await busy.variants({ list_lag_ms: 20_000 });
			return { to: FAILING, attempt: 2, call_id: String(previous.id) };
		}

		test('two executions of one process, one after the other (a webhook delivered twice): attempt 2 placed once, its call given back', async () => {
			const lead = await leadAtAttemptTwo();
			const parameters = callAgain('Renewal for Ada');
			const [first] = jsonOf(await execution('attempt-2-a', { parameters, input: [lead] }, busy));
			expect(first).toMatchObject({ outcome: 'retry_due', attempt: 3, ...failed });

			const [again] = jsonOf(await execution('attempt-2-b', { parameters, input: [lead] }, busy));

			expect(await dials(busy)).toEqual({ [FAILING]: 1 });
			expect(again).toMatchObject({
				outcome: 'retry_due',
				attempt: 3,
				call_id: first.call_id,
				skipped: true,
			});
		}, 30_000);

		test('without a Context the second execution outputs attempt 2’s call as skipped, and does not dial', async () => {
			const lead = await leadAtAttemptTwo();
			const parameters = callAgain('');
			const [first] = jsonOf(await execution('attempt-2-c', { parameters, input: [lead] }, busy));

			const [again] = jsonOf(await execution('attempt-2-d', { parameters, input: [lead] }, busy));

			expect(await dials(busy)).toEqual({ [FAILING]: 1 });
			expect(again).toMatchObject({ outcome: 'skipped', attempt: 2, id: first.call_id });
		}, 30_000);

		test('one execution whose loop feeds attempt 2 again (its outcome not written back): the attempt’s call, not a second dial', async () => {
			const lead = await leadAtAttemptTwo();
			const result = await execution(
				'attempt-2-loop',
				{ parameters: callAgain(''), input: [lead], laterInputs: [[lead]] },
				busy,
			);
			const passes = result.run.data.resultData.runData['Voice Agent'].map(
				(task) => task.data?.main[0]?.[0].json,
			);

			expect(await dials(busy)).toEqual({ [FAILING]: 1 });
			expect(passes[0]).toMatchObject({ outcome: 'retry_due', attempt: 3 });
			expect(passes[1]).toMatchObject({
				outcome: 'retry_due',
				attempt: 3,
				call_id: passes[0]?.call_id,
				skipped: true,
			});
		}, 30_000);
	},
);

describe.each(PROFILES)(
	'issue 41 row 2 (%s profile): POST /call answered 500 after the service placed the call, the call list 2 minutes late',
	(profile) => {
		const service = useSandbox({ profile, callDurationMs: 300_000 });

		test.each([15, 0])(
			'skip window %i: a second execution 61 s later does not dial while the first call is in progress',
			async (window) => {
				setClock('2026-03-10T15:00:00Z');
				await createAgent(service, { name: 'Front Desk' });
				await service.clearRequests();
				await service.variants({ list_lag_ms: 120_000 });
				await service.faults({ match: 'POST /call', error_rate: 1, when: 'after', times: 1 });
				const to = `+1415555${window === 0 ? '2100' : '2115'}`;
				const parameters = create({ skipCalledWithinMinutes: window });

				const first = await execution(`row2-${window}-a`, { parameters, input: [{ to }] }, service);
				expect(first.error?.message).toMatch(/may not have been placed/);
				jumpClock(61_000);
				const second = await execution(
					`row2-${window}-b`,
					{ parameters, input: [{ to }] },
					service,
				);

				expect(await dials(service)).toEqual({ [to]: 1 });
				expect(second.error?.message).toMatch(/may have been placed/);
			},
			30_000,
		);
	},
);

describe.each(PROFILES)(
	'issue 41 row 3 (%s profile): two accounts whose call IDs coincide',
	(profile) => {
		const accountA = useSandbox({ profile, callDurationMs: 300_000 });
		const accountB = useSandbox({ profile, callDurationMs: 300_000 });

		test("account A's call ends while B's call of the same ID is in progress: B's number asked again a minute later (skip window 0) is not dialled", async () => {
			setClock('2026-03-10T16:00:00Z');
			for (const account of [accountA, accountB])
				await createAgent(account, { name: 'Front Desk' });
			// Calls at Once 2: from node 1.4 the node's slots are shared by its executions in the process.
			const wait = { waitForEnd: true, maxWaitMinutes: 5, firstCheckSeconds: 1, callsAtOnce: 2 };
			const parameters = create({ skipCalledWithinMinutes: 0 }, { callsAtOnce: 2 });
			const a = execution(
				'account-a',
				{
					parameters: create({ skipCalledWithinMinutes: 0 }, wait),
					input: [{ to: '+14155553001' }],
				},
				accountA,
			);
			const callA = await waitFor('A’s call', async () => {
				const id = (await accountA.api('GET', '/calls')).body.calls[0]?.id;
				return id === undefined ? undefined : String(id);
			});
			const [placedB] = jsonOf(
				await execution('account-b', { parameters, input: [{ to: '+14155553002' }] }, accountB),
			);
			// The premise: the two services gave their calls one ID.
			expect(placedB.id).toBe(callA);
			await endNow(accountA, callA);
			expect(jsonOf(await a)[0]).toMatchObject({ outcome: 'ended', id: callA });
			jumpClock(61_000);

			const again = jsonOf(
				await execution(
					'account-b-again',
					{ parameters, input: [{ to: '+14155553002' }] },
					accountB,
				),
			)[0];

			expect(again).toMatchObject({ id: placedB.id, skipped: true });
			expect(await dials(accountB)).toEqual({ '+14155553002': 1 });
		}, 30_000);
	},
);

describe('issue 41 row 4: the gate full of calls that may be in progress', () => {
	// The package's gate as n8n loaded it for the runs of this file (the same module instance).
	const gate = require('../../../dist/nodes/VoiceAgent/actions/call/create/gate/numberGate.js');
	const CAPACITY = 50_000;

	/**
	 * 50,000 other numbers placed by this process, their calls in progress (no end seen), entered as the
	 * node enters them; once the gate is full the rest are refused (`full`) and never placed.
	 */
	function fillGate(): number {
		const holder = { executionId: 'others', ledger: { records: {}, sentAt: [] }, itemIndex: 0 };
		const now = Date.now();
		let placed = 0;
		for (let n = 0; n < CAPACITY; n++) {
			const record = { agent: '', to: `+1650${n}`, state: 'placed', executionId: 'others' };
			const pass = gate.enterGate(`other|+16505550100>+1650${n}`, { ...holder, record }, now);
			if (pass === 'full') break;
			pass.placed(`other_call_${n}`);
			placed++;
		}
		return placed;
	}

	afterEach(() => gate.clearGate());

	test.each([
		['node 1.4, skip window 0', 1.4, { skipCalledWithinMinutes: 0 }],
		['node 1', 1, {}],
	])(
		'%s: the first number, its call in progress, asked again after 50,000 others is not dialled; a new number is refused, naming why',
		async (_, typeVersion, more) => {
			await createAgent(sandbox, { name: 'Front Desk' });
			const parameters = create(more);
			const [first] = jsonOf(
				await execution('cap-first', { parameters, typeVersion, input: [{ to: '+14155554001' }] }),
			);
			expect(fillGate()).toBeGreaterThanOrEqual(CAPACITY - 1);

			const again = await execution('cap-again', {
				parameters,
				typeVersion,
				input: [{ to: '+14155554001' }, { to: '+14155554002' }],
				continueOnFail: true,
			});

			const [skipped, refused] = jsonOf(again);
			expect(skipped).toMatchObject({ id: first.id, skipped: true });
			expect(refused.error).toMatch(
				/^The call to \+14155554002 was not placed: this n8n process already holds 50,000 numbers whose calls may be in progress/,
			);
			expect(await dials()).toEqual({ '+14155554001': 1 });
			expect(gate.gateCounts()).toMatchObject({ deciding: 0, placing: 0 });
		},
		60_000,
	);
});
