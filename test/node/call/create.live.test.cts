/**
 * Call → Create against the live service's call states (issue 39, items 4 and 5): a call rings before it
 * connects (`in_progress` false, `client_number` "" until then, no status), and one that is never answered
 * rings for ever (the sandbox's live profile: numbers ending in 0000). Every guard and wait must read those
 * states: a ringing call holds its number and its slot, a wait ends on a real end, a call that never
 * connects says so, a 500 after the phone rang is never dialled again, and another n8n process does not
 * dial a number whose call still rings. Named regressions: each failed before its fix, unless it says it
 * proves what already held. Executions run in n8n-core's real engine; "another process" is the package
 * loaded afresh (jest.isolateModulesAsync), which shares nothing with this one but the service.
 */
import { createAgent } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { jsonOf } from '../../support/node.cts';
import { useSandbox, type TestSandbox } from '../../support/sandbox.cts';
import { sleep, waitFor } from '../../support/wait.cts';
import { create, dials, execution, inAnotherProcess } from './create/liveRuns.cts';

const NEVER_ANSWERS = '+14155550000';

const waiting = (options: Record<string, unknown> = {}) => ({
	waitForEnd: true,
	maxWaitMinutes: 1,
	firstCheckSeconds: 1,
	...options,
});

/** The account's newest call as the service writes it. */
async function newestRow(sandbox: TestSandbox): Promise<any> {
	return (await sandbox.api('GET', '/calls', { query: { limit: 1 } })).body.calls[0];
}

afterEach(restoreClock);

describe('the live profile: a call that rings, talks and ends', () => {
	const sandbox = useSandbox({ profile: 'live', callDurationMs: 6_000, ringMs: 2_000 });
	beforeEach(() => createAgent(sandbox, { name: 'Front Desk' }));

	test('Create + Wait for the Call to End, the call ringing 2 s and talking 6 s: the item once ended, with its transcript (proves what held)', async () => {
		const result = await execution(sandbox, 'live-wait', {
			parameters: create({}, waiting()),
			input: [{ to: '+14155556001' }],
		});
		const [item] = jsonOf(result);
		expect(item).toMatchObject({
			outcome: 'ended',
			ended: true,
			status: 'completed',
			to: '+14155556001',
		});
		expect(item.never_connected).toBeUndefined();
		expect(item.transcript.length).toBeGreaterThan(1);
		expect(item.transcript.every((turn: any) => ['agent', 'customer'].includes(turn.speaker))).toBe(
			true,
		);
		expect(await dials(sandbox)).toEqual({ '+14155556001': 1 });
	}, 30_000);

	test('a call that rings holds its number in the process, skip window 0: the second execution outputs it as skipped (proves what held)', async () => {
		await sandbox.live({ ring_ms: 20_000 });
		const parameters = create({ skipCalledWithinMinutes: 0 });
		const [first] = jsonOf(
			await execution(sandbox, 'ring-1', { parameters, input: [{ to: '+14155556002' }] }),
		);
		expect(first).toMatchObject({ status: 'ringing', to: '+14155556002' });
		const [second] = jsonOf(
			await execution(sandbox, 'ring-2', { parameters, input: [{ to: '+14155556002' }] }),
		);
		expect(second).toMatchObject({ id: first.id, skipped: true });
		expect(await dials(sandbox)).toEqual({ '+14155556002': 1 });
	}, 30_000);

	test('the skipped item of a call that rings names the number, as the placed one does (the live list has none yet)', async () => {
		await sandbox.live({ ring_ms: 20_000 });
		const parameters = create({ skipCalledWithinMinutes: 0 });
		await execution(sandbox, 'ring-to-1', { parameters, input: [{ to: '+14155556003' }] });
		const [second] = jsonOf(
			await execution(sandbox, 'ring-to-2', { parameters, input: [{ to: '+14155556003' }] }),
		);
		expect(second).toMatchObject({ skipped: true, status: 'ringing', to: '+14155556003' });
	}, 30_000);

	test('Calls at Once 1, waiting: a ringing call keeps its slot, never two calls at once (proves what held)', async () => {
		await sandbox.live({ ring_ms: 1_500 });
		const result = await execution(sandbox, 'ring-slot', {
			parameters: create({}, waiting({ callsAtOnce: 1 })),
			input: [{ to: '+14155556003' }, { to: '+14155556004' }],
		});
		expect(jsonOf(result).map((item) => item.outcome)).toEqual(['ended', 'ended']);
		const load = (await sandbox.control('GET', '/call-load')).body.accounts[0];
		expect(load).toMatchObject({ calls_created: 2, max_in_progress: 1 });
	}, 60_000);
});

describe('the live profile: a call that never connects', () => {
	const sandbox = useSandbox({ profile: 'live', callDurationMs: 6_000 });
	beforeEach(() => createAgent(sandbox, { name: 'Front Desk' }));

	test('Wait for the Call to End ends at Max Wait with an item that says it never connected', async () => {
		const result = await execution(sandbox, 'never-max-wait', {
			parameters: create({}, waiting({ maxWaitMinutes: 0.05 })),
			input: [{ to: NEVER_ANSWERS }],
		});
		const [item] = jsonOf(result);
		expect(item).toMatchObject({
			outcome: 'placed',
			ended: false,
			status: 'ringing',
			never_connected: true,
		});
	}, 30_000);

	test('Max Wait set to fail: the error says the call never connected', async () => {
		const result = await execution(sandbox, 'never-fail', {
			parameters: create({}, waiting({ maxWaitMinutes: 0.05, onMaxWait: 'fail' })),
			input: [{ to: NEVER_ANSWERS }],
		});
		expect(result.error?.message).toMatch(
			/^The call \d+ had not connected after 0\.05 minutes: it still rang \(status ringing\) \[item 0\]$/,
		);
	}, 30_000);

	test('the never-connected bound before Max Wait: the wait ends there, the item ended and never connected', async () => {
		setClock('2026-04-14T10:00:00Z');
		const running = execution(sandbox, 'never-bound', {
			parameters: create({}, waiting({ maxWaitMinutes: 30 })),
			input: [{ to: NEVER_ANSWERS }],
		});
		await waitFor('the call', async () => (await newestRow(sandbox))?.id);
		await sleep(1_500);
		jumpClock(10 * 60_000 + 1_000);
		const [item] = jsonOf(await running);
		expect(item).toMatchObject({
			outcome: 'ended',
			ended: true,
			status: 'not_connected',
			never_connected: true,
		});
	}, 60_000);

	test('Call Again: a call that never connected within the attempt’s wait is failed, the next attempt due', async () => {
		const result = await execution(sandbox, 'never-again', {
			parameters: create(
				{},
				waiting({
					maxWaitMinutes: 0.05,
					callAgain: { settings: { attempts: 3, minutesBetween: 30 } },
				}),
			),
			input: [{ to: NEVER_ANSWERS }],
		});
		const [item] = jsonOf(result);
		expect(item).toMatchObject({
			outcome: 'retry_due',
			attempt: 2,
			ended: false,
			never_connected: true,
		});
		expect(item.reason).toMatch(/^Attempt 1 of 3 never connected: attempt 2 is due at /);
		expect(await dials(sandbox)).toEqual({ [NEVER_ANSWERS]: 1 });
	}, 30_000);
});

describe.each(['documented', 'live'] as const)('the %s profile: across processes', (profile) => {
	const sandbox = useSandbox({ profile, callDurationMs: 60_000, ringMs: 8_000 });
	beforeEach(() => createAgent(sandbox, { name: 'Front Desk' }));

	test('two n8n processes want one number 4 s apart, skip window 15, the first call still ringing: phoned once', async () => {
		const to = '+14155556101';
		const parameters = create({ skipCalledWithinMinutes: 15 });
		const [first] = jsonOf(await execution(sandbox, 'process-1', { parameters, input: [{ to }] }));
		await sleep(4_000);
		const [second] = jsonOf(
			await inAnotherProcess(sandbox, 'process-2', { parameters, input: [{ to }] }),
		);
		expect(second).toMatchObject({ id: first.id, skipped: true });
		expect(await dials(sandbox)).toEqual({ [to]: 1 });
	}, 60_000);

	test('POST /call answered 500 after the phone rang: the call is named, and neither this process nor another dials it again', async () => {
		await sandbox.faults({ match: 'POST /call', error_rate: 1, when: 'after', times: 1 });
		const to = '+14155556102';
		const parameters = create({ skipCalledWithinMinutes: 15 });
		const [first] = jsonOf(await execution(sandbox, 'failed-1', { parameters, input: [{ to }] }));
		expect(first).toMatchObject({ outcome: 'placed', to });
		const [again] = jsonOf(await execution(sandbox, 'failed-2', { parameters, input: [{ to }] }));
		expect(again).toMatchObject({ id: first.id, skipped: true });
		const [elsewhere] = jsonOf(
			await inAnotherProcess(sandbox, 'failed-3', { parameters, input: [{ to }] }),
		);
		expect(elsewhere).toMatchObject({ id: first.id, skipped: true });
		expect(await dials(sandbox)).toEqual({ [to]: 1 });
	}, 60_000);
});
