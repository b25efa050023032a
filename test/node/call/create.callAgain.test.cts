/**
 * Call → Create → Options → Call Again When the Call Fails (node version 1.3): an ended call that is not
 * a success comes out as "retry_due" with the next attempt, until the attempts are used; each attempt is
 * placed once, a re-run of an attempt is never a next attempt and a next attempt never a re-run. Run in
 * n8n-core's real engine against the sandbox, whose numbers ending in 0000 end "failed".
 */
import { allCalls, callsPosted, createAgent, wireLines } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { hintsOf, jsonOf, runNode, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 2_500 });

const FAILING = '+14155550000';
const REACHED = '+14155550123';
const posts = () => callsPosted(sandbox);

let agent: any;
beforeEach(async () => {
	agent = await createAgent(sandbox, { name: 'Renewals' });
	await sandbox.clearRequests();
});

function create(settings: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agent.id),
		to: '={{ $json.phone }}',
		options: {
			waitForEnd: true,
			firstCheckSeconds: 1,
			callAgain: { settings: { attempts: 3, minutesBetween: 30, ...settings } },
			...options,
		},
	};
}

const run = (input: Record<string, unknown>[], settings?: Record<string, unknown>) =>
	runWith(sandbox, create(settings), { input, typeVersion: 1.3 });

/** What the lead store keeps of an output item, as the example workflow writes it back. */
const writeBack = (lead: Record<string, unknown>, item: any) => ({
	...lead,
	attempt: item.attempt,
	call_id: item.id,
	next_call_at: item.next_call_at,
});

describe('a call that fails is called again until the attempts are used', () => {
	test('attempt 1 → retry due 2 → retry due 3 → ended: three calls, each placed once', async () => {
		let lead: Record<string, unknown> = { phone: FAILING, name: 'Ada' };
		const outcomes: string[] = [];
		for (let pass = 0; pass < 3; pass++) {
			const before = Date.now();
			const [item] = jsonOf(await run([lead]));
			outcomes.push(`${item.outcome}:${item.attempt}:${item.status}`);
			if (item.outcome === 'retry_due') {
				// Due 30 minutes after the end was seen, in the workflow's zone (New York in this engine).
				const due = Date.parse(item.next_call_at);
				expect(due - Date.parse(item.end_seen_at)).toBeGreaterThanOrEqual(30 * 60_000 - 1_000);
				expect(due).toBeGreaterThan(before + 30 * 60_000);
				expect(item.next_call_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-0[45]:00$/);
				expect(item.retry_at).toBe(item.next_call_at);
			}
			lead = writeBack(lead, item);
		}
		expect(outcomes).toEqual(['retry_due:2:failed', 'retry_due:3:failed', 'ended:3:failed']);
		expect(await posts()).toBe(3);
	});

	test('a call that reached the lead ends it at once', async () => {
		const [item] = jsonOf(await run([{ phone: REACHED }]));
		expect(item).toMatchObject({ outcome: 'ended', attempt: 1, status: 'completed' });
		expect(item.next_call_at).toBeUndefined();
	});

	test('Success Statuses decide what counts as reached', async () => {
		const [item] = jsonOf(
			await run([{ phone: FAILING }], { successStatuses: 'completed, failed' }),
		);
		expect(item).toMatchObject({ outcome: 'ended', status: 'failed' });
	});

	/** Attempt 2 placed by a pass whose outcome never reached the lead store: the lead as it is fed again. */
	async function attemptTwoLost(context = '') {
		const parameters = { ...create(), context };
		const pass = (input: Record<string, unknown>[]) =>
			runWith(sandbox, parameters, { input, typeVersion: 1.3 });
		const [first] = jsonOf(await pass([{ phone: FAILING }]));
		const due = writeBack({ phone: FAILING }, first);
		const [second] = jsonOf(await pass([due]));
		expect(second).toMatchObject({ outcome: 'retry_due', attempt: 3 });
		return { due, first, second, parameters };
	}

	test("attempt 2 fed again and run again by Retry On Fail (another lead failed first): it keeps its call's outcome", async () => {
		const { due, second, parameters } = await attemptTwoLost('Renewal for Ada');
		// On Error → Continue with the first item failed: n8n runs the node again, all items included.
		const result = await runNode({
			parameters: {
				...parameters,
				options: { ...parameters.options, allowedDestinations: '+1415' },
			},
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			input: [{ phone: '+12125550101' }, due],
			typeVersion: 1.3,
			continueOnFail: true,
			settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		const [refused, lead] = jsonOf(result);
		expect(refused).toMatchObject({ outcome: 'failed', failure: 'not_placed' });
		expect(lead).toMatchObject({ outcome: 'retry_due', attempt: 3, call_id: second.id });
		expect(await posts()).toBe(2);
	});

	test("attempt 2 fed again, its execution failed by another lead and retried: it keeps its call's outcome", async () => {
		const { due, second, parameters } = await attemptTwoLost('Renewal for Ada');
		// The other lead's call is refused once: the node fails after the first lead found its own call.
		await sandbox.faults({ match: 'POST /call', error_rate: 1, status: 400, times: 1 });
		const options = {
			parameters,
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			input: [due, { phone: REACHED }],
			typeVersion: 1.3,
		};
		const failed = await runNode({ ...options, executionId: '201' });
		expect(failed.error?.message).toMatch(/400/);
		const retried = await runNode({ ...options, executionId: '202', retryOf: failed.run });
		const [lead, other] = jsonOf(retried);
		expect(lead).toMatchObject({ outcome: 'retry_due', attempt: 3, call_id: second.id });
		expect(other).toMatchObject({ outcome: 'ended', attempt: 1, status: 'completed' });
		// Attempts 1 and 2, the other lead's refused POST and its call: the lead was not dialled again.
		expect(await wireLines(sandbox)).toEqual(expect.arrayContaining(['POST /call 400']));
		expect(await posts()).toBe(4);
	});

	test("an empty Context is no evidence: a newer call without one is not the attempt's own", async () => {
		const { due, second } = await attemptTwoLost('');
		const [again] = jsonOf(await run([due]));
		expect(again).toMatchObject({ outcome: 'skipped', attempt: 2, id: second.id, skipped: true });
		expect(again.skipReason).toContain('the number was called since');
		expect(await posts()).toBe(2);
	});

	test('attempt 2 fed again after it was placed is not dialled again: its own call gives its outcome', async () => {
		// The outcome of attempt 2 never reached the lead store: the same lead comes again.
		const { due, first, second, parameters } = await attemptTwoLost('Renewal for Ada');
		const [again] = jsonOf(await runWith(sandbox, parameters, { input: [due], typeVersion: 1.3 }));
		expect(again).toMatchObject({
			outcome: 'retry_due',
			attempt: 3,
			id: second.id,
			call_id: second.id,
			skipped: true,
		});
		expect(again.skipReason).toContain(`is newer than attempt 1's call ${first.id}`);
		expect(await posts()).toBe(2);
	});

	test("a loop that feeds attempt 2 again (its outcome not written back) gets the attempt's call, Context empty", async () => {
		const [first] = jsonOf(await run([{ phone: FAILING }]));
		const due = writeBack({ phone: FAILING }, first);
		const result = await runNode({
			parameters: create(),
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			input: [due],
			laterInputs: [[due]],
			typeVersion: 1.3,
		});
		const passes = result.run.data.resultData.runData['Voice Agent'].map(
			(task) => task.data?.main[0]?.[0].json,
		);
		expect(passes[0]).toMatchObject({ outcome: 'retry_due', attempt: 3 });
		// This execution placed that call for attempt 2: evidence enough, without a Context.
		expect(passes[1]).toMatchObject({
			outcome: 'retry_due',
			attempt: 3,
			call_id: passes[0]?.call_id,
			skipped: true,
		});
		expect(await posts()).toBe(2);
	});

	test("a newer call with another context is not this attempt's: skipped, and the lead is not dialled", async () => {
		const [first] = jsonOf(await run([{ phone: FAILING }]));
		const other = await runWith(
			sandbox,
			{ ...create(), context: 'Another campaign', skipCalledWithinMinutes: 0 },
			{
				input: [{ phone: FAILING }],
				typeVersion: 1.3,
			},
		);
		expect(jsonOf(other)[0].outcome).toBe('retry_due');
		const [item] = jsonOf(await run([writeBack({ phone: FAILING }, first)]));
		expect(item).toMatchObject({ outcome: 'skipped', attempt: 2, skipped: true });
		expect(await posts()).toBe(2);
	});

	test('attempt 2 is placed even inside Skip If Called Within (Minutes): it is no re-run', async () => {
		const [first] = jsonOf(await run([{ phone: FAILING }]));
		const parameters = { ...create(), skipCalledWithinMinutes: 1_440 };
		const result = await runWith(sandbox, parameters, {
			input: [writeBack({ phone: FAILING }, first)],
			typeVersion: 1.3,
		});
		expect(jsonOf(result)[0]).toMatchObject({ outcome: 'retry_due', attempt: 3 });
		expect(await posts()).toBe(2);
	});

	test('Retry On Fail on an attempt gives back its call; Retry execution too', async () => {
		// Both tries give up waiting after 0.6 s, long before the call ends.
		const lead = { phone: REACHED };
		const parameters = create({}, { maxWaitMinutes: 0.01, onMaxWait: 'fail' });
		const first = await runNode({
			parameters,
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			input: [lead],
			typeVersion: 1.3,
			settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(first.error?.message).toMatch(/had not ended after 0\.01 minutes/);
		expect(await posts()).toBe(1);
		const retried = await runNode({
			parameters: create(),
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			input: [lead],
			typeVersion: 1.3,
			retryOf: first.run,
			executionId: 'retry-of-test-execution',
		});
		// The retried execution waits for the first one's call: its end is attempt 1's outcome.
		const [item] = jsonOf(retried);
		expect(item).toMatchObject({
			attempt: 1,
			skipped: true,
			outcome: 'ended',
			status: 'completed',
		});
		expect(await posts()).toBe(1);
	});
});

describe('checked before anything is dialled', () => {
	test('attempt 2 without the previous call names the field and the item', async () => {
		const result = await run([{ phone: REACHED }, { phone: FAILING, attempt: 2 }]);
		expect(result.error?.message).toBe(
			'Call Again When the Call Fails → Previous Call ID must not be empty [item 1]',
		);
		expect(await posts()).toBe(0);
	});

	test('an attempt beyond Attempts is refused', async () => {
		const result = await run([{ phone: FAILING, attempt: 4, call_id: 'c1' }]);
		expect(result.error?.message).toBe(
			'Call Again When the Call Fails → Attempt Number must be a whole number from 1 to 3 (got 4) [item 0]',
		);
		expect(await posts()).toBe(0);
	});

	test('Call Again without Wait for the Call to End is a configuration error', async () => {
		const parameters = create();
		(parameters.options as Record<string, unknown>).waitForEnd = false;
		const result = await runWith(sandbox, parameters, {
			input: [{ phone: REACHED }],
			typeVersion: 1.3,
		});
		expect(result.error?.message).toBe(
			'Call Again When the Call Fails needs Wait for the Call to End: only a call seen to end can have failed [item 0]',
		);
		expect(await posts()).toBe(0);
	});
});

describe('one outcome per lead', () => {
	test('a call still going on when Max Wait fails its item is "may have been placed", with its ID', async () => {
		const parameters = create({}, { maxWaitMinutes: 0.01, onMaxWait: 'fail' });
		const result = await runWith(sandbox, parameters, {
			input: [{ phone: REACHED }],
			typeVersion: 1.3,
			continueOnFail: true,
		});
		const [call] = await allCalls(sandbox);
		expect(jsonOf(result)).toEqual([
			{
				error: expect.stringMatching(/had not ended after 0\.01 minutes/),
				outcome: 'failed',
				failure: 'may_have_been_placed',
				attempt: 1,
				call_id: call.id,
			},
		]);
	});

	test('with On Error → Continue a failed item says whether it was placed; the hint counts each outcome', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'after', times: 1 });
		const result = await runWith(sandbox, create(), {
			input: [{ phone: '+14155550101' }, { phone: '+14155550102', attempt: 2 }, { phone: REACHED }],
			typeVersion: 1.3,
			continueOnFail: true,
		});
		const items = jsonOf(result);
		expect(items.map((item) => [item.outcome, item.failure, item.attempt])).toEqual([
			// The service acted, then answered 500; the call list showed the call, so it was placed.
			['ended', undefined, 1],
			['failed', 'not_placed', 2],
			['ended', undefined, 1],
		]);
		expect(hintsOf(result)).toEqual(['Calls: 2 placed (2 ended), 1 failed']);
		expect((await allCalls(sandbox)).length).toBe(2);
	});
});
