/**
 * What the gate and the guards keep of a call that may still matter, in one n8n process: a call seen to end
 * (a minute, for a call list that lags), a call whose POST /call got no answer (a minute after it was placed:
 * nobody can tell yet whether it exists), and, from Call Again's attempt 2, the previous attempt's call while it
 * is in progress. Named regressions of issue 41's mutation check: three mutants an outside review planted in
 * the built engine (ended calls let go at once; a call of unknown outcome let go; attempt 2 ignoring the
 * previous attempt's live call) survived every test before these. Run in n8n-core's real engine against the
 * sandbox; its request log counts the calls placed.
 */
import type { IDataObject } from 'n8n-workflow';

import { createAgent, dialsByNumber, endCall, placeCall } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { waitFor } from '../../support/wait.cts';

// Calls last until a test ends them.
const sandbox = useSandbox({ callDurationMs: 120_000 });
const credentials = () => ({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });

let agent: { id: string; phone_number: string };
beforeEach(async () => {
	agent = await createAgent(sandbox, { name: 'Front Desk' });
	await sandbox.clearRequests();
});

afterEach(async () => {
	await sandbox.faults({});
	await sandbox.variants({});
});

function create(options: Record<string, unknown> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		context: '={{ $json.context }}',
		skipCalledWithinMinutes: 15,
		options: { allowedDestinations: '+1415', ...options },
	};
}

const execution = (id: string, input: IDataObject, options?: Record<string, unknown>) =>
	runNode({
		parameters: create(options),
		credentials: credentials(),
		typeVersion: 1.4,
		executionId: id,
		input: [input],
	});

describe('the gate keeps what may still matter', () => {
	test('a call seen to end, the list 30 s late, skip window 15: a second execution right after outputs it as skipped, not dialled', async () => {
		await sandbox.variants({ list_lag_ms: 30_000 });
		const to = '+14155559201';
		const waiting = execution('kept-ended-1', { to }, { waitForEnd: true, firstCheckSeconds: 1 });
		const placed = await waitFor(
			'the first call',
			async () =>
				(await sandbox.requests()).find((request) => request.created_call_id)?.created_call_id,
		);
		await endCall(sandbox, String(placed));
		const first = jsonOf(await waiting)[0];
		expect(first).toMatchObject({ outcome: 'ended', status: 'completed' });
		// The list does not show the call yet: only the gate knows that it was placed a moment ago.
		expect(
			(await sandbox.api('GET', '/calls', { query: { client_number: to } })).body.calls,
		).toEqual([]);
		const second = jsonOf(await execution('kept-ended-2', { to }))[0];
		expect(second).toMatchObject({ outcome: 'skipped', skipped: true, id: first.id });
		expect(await dialsByNumber(sandbox)).toEqual({ [to]: 1 });
	}, 30_000);

	test('POST /call answered 500 after the service placed the call, the list 30 s late: a second execution after the first gave up does not dial', async () => {
		await sandbox.variants({ list_lag_ms: 30_000 });
		await sandbox.faults({
			match: 'POST /call',
			error_rate: 1,
			status: 500,
			when: 'after',
			times: 1,
		});
		const to = '+14155559202';
		const first = await execution('kept-unknown-1', { to });
		expect(first.error?.message).toMatch(/may not have been placed/);
		const second = await execution('kept-unknown-2', { to });
		// Whatever it says, it placed nothing: the person was phoned once, by the first execution.
		expect(second.items.filter((item) => item.json.outcome === 'placed')).toEqual([]);
		expect(second.error?.message ?? '').toMatch(/may have been placed|not placed again/);
		const posted = (await sandbox.requests()).filter(
			(request) => request.method === 'POST' && request.path === '/v1/call',
		);
		expect(posted.map((request) => request.created_call_id !== undefined)).toEqual([true]);
	}, 60_000);
});

describe("Call Again's attempt 2 and the previous attempt's call", () => {
	test('attempt 2 fed while attempt 1’s call (placed by another n8n process) is in progress: skipped, naming it, not dialled', async () => {
		const to = '+14155559203';
		// Another process placed attempt 1: this process's gate knows nothing of it, only the list does.
		const live = await placeCall(sandbox, agent, { to, context: 'Renewal' });
		await sandbox.clearRequests();
		const options = {
			waitForEnd: true,
			firstCheckSeconds: 1,
			// Were it dialled, its wait would end soon: the test fails at once instead of timing out.
			maxWaitMinutes: 0.05,
			callAgain: { settings: { attempts: 3, minutesBetween: 0 } },
		};
		const [item] = jsonOf(
			await runNode({
				parameters: create(options),
				credentials: credentials(),
				typeVersion: 1.4,
				executionId: 'kept-attempt-2',
				input: [{ to, context: 'Renewal', attempt: 2, call_id: live.id }],
			}),
		);
		expect(item).toMatchObject({ outcome: 'skipped', skipped: true, id: live.id });
		expect(item.skipReason).toContain('still in progress');
		expect(await dialsByNumber(sandbox)).toEqual({});
	}, 30_000);
});
