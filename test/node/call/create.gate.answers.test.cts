/**
 * Call → Create's gate (gate/meetNumber.ts) against answers the contract does not rule out, found by an
 * outside review of issue 34's gate: each of them let a second execution dial a person whose call was
 * still in progress. Named regressions: every test failed before the fix. Executions run in n8n-core's
 * real engine against the sandbox; its request log counts the calls placed.
 */
import { createAgent, dialsByNumber } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });
const credentials = () => ({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });

function create(skipCalledWithinMinutes: number, more: Record<string, unknown> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		skipCalledWithinMinutes,
		options: { allowedDestinations: '+1415' },
		...more,
	};
}

const execution = (
	id: string,
	to: string,
	more: Partial<RunNodeOptions> & Pick<RunNodeOptions, 'parameters'>,
) =>
	runNode({
		credentials: credentials(),
		typeVersion: 1.4,
		executionId: id,
		input: [{ to }],
		...more,
	});

/** How many times each number was phoned (POST /call answered 2xx). */
const dialled = () => dialsByNumber(sandbox);

beforeEach(async () => {
	await createAgent(sandbox, { name: 'Front Desk' });
	await sandbox.clearRequests();
});

afterEach(async () => {
	await sandbox.faults({});
	await sandbox.variants({});
});

describe('the gate against answers the contract does not rule out', () => {
	test('GET /call answers 404 once for a call in progress (a read not caught up yet), skip window 0: the second execution outputs it as skipped', async () => {
		const to = '+14155559101';
		const first = jsonOf(await execution('gate-404-1', to, { parameters: create(0) }))[0];
		expect(first.outcome).toBe('placed');
		await sandbox.faults({ match: 'GET /call', status: 404, error_rate: 1, times: 1 });
		const second = jsonOf(await execution('gate-404-2', to, { parameters: create(0) }))[0];
		expect(second).toMatchObject({ id: first.id, skipped: true });
		expect(await dialled()).toEqual({ [to]: 1 });
	}, 30_000);

	test('a 201 without an ID and a call list 10 s late, skip window 15: a second execution after the first gave up does not dial', async () => {
		await sandbox.variants({ create_answer: 'empty_201', list_lag_ms: 10_000 });
		const to = '+14155559102';
		const first = await execution('gate-unnamed-1', to, { parameters: create(15) });
		expect(first.error?.message).toMatch(/did not name it/);
		const second = await execution('gate-unnamed-2', to, { parameters: create(15) });
		expect(second.error?.message).toMatch(/may have been placed/);
		expect(await dialled()).toEqual({ [to]: 1 });
	}, 60_000);

	test('one agent named by name in one execution and by its phone number in another, at once, skip window 0: phoned once', async () => {
		const [agent] = (await sandbox.api('GET', '/agents')).body.agents as Array<{
			phone_number: string;
		}>;
		await sandbox.faults({ match: 'POST /call', latency_ms: 300 });
		const to = '+14155559103';
		const byName = create(0);
		const byNumber = { ...byName, from: rl(agent.phone_number, 'phoneNumber') };
		const runs = await Promise.all([
			execution('gate-from-name', to, { parameters: byName }),
			execution('gate-from-number', to, { parameters: byNumber }),
		]);
		const outputs = runs.map((run) => jsonOf(run)[0]);
		expect(outputs.map((output) => output.skipped === true).sort()).toEqual([false, true]);
		expect(outputs[0].id).toBe(outputs[1].id);
		expect(await dialled()).toEqual({ [to]: 1 });
	}, 30_000);

	test('an execution stopped while its POST /call (3 s) is in flight, another for the number right after, skip window 15: phoned once', async () => {
		await sandbox.faults({ match: 'POST /call', latency_ms: 3_000, times: 1 });
		const to = '+14155559104';
		// Stopped once the POST is at the service (its one latency spent), not after a fixed time: on a loaded
		// machine 500 ms once came before the POST was sent, and nothing was in flight to stop.
		const postArrived = waitFor('POST /call to reach the service', async () => {
			const faults = await sandbox.control('GET', '/faults');
			return faults.body.times_remaining === 0 ? true : undefined;
		});
		const stopped = await execution('gate-stopped-1', to, {
			parameters: create(15),
			cancelWhen: postArrived,
		});
		expect(stopped.error).toBeDefined();
		const second = await execution('gate-stopped-2', to, { parameters: create(15) });
		expect(second.error?.message).toMatch(/may have been placed/);
		// The stopped execution's request reaches the service all the same.
		await sleep(3_000);
		expect(await dialled()).toEqual({ [to]: 1 });
	}, 30_000);

	test('a service that writes a call in progress with a status nobody listed ("bridged"), skip window 0: the second execution outputs it as skipped', async () => {
		await sandbox.variants({ live_status: 'bridged' });
		const to = '+14155559105';
		const first = jsonOf(await execution('gate-status-1', to, { parameters: create(0) }))[0];
		expect(first.status).toBe('bridged');
		const second = jsonOf(await execution('gate-status-2', to, { parameters: create(0) }))[0];
		expect(second).toMatchObject({ id: first.id, skipped: true });
		expect(await dialled()).toEqual({ [to]: 1 });
	}, 30_000);

	test('GET /call keeps failing (500) when a second execution meets the call: it outputs the call as skipped, naming it', async () => {
		const to = '+14155559106';
		const first = jsonOf(await execution('gate-500-1', to, { parameters: create(0) }))[0];
		await sandbox.faults({ match: 'GET /call', status: 500, error_rate: 1 });
		const second = jsonOf(await execution('gate-500-2', to, { parameters: create(0) }))[0];
		expect(second).toMatchObject({ id: first.id, to, skipped: true });
		expect(second.skipReason).toContain(first.id);
		expect(await dialled()).toEqual({ [to]: 1 });
	}, 60_000);
});
