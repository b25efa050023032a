/**
 * "Wait for the Call to End" on Call → Create and Call → Get: checks the call until it has ended, with
 * growing intervals, a maximum wait, and the execution's cancel signal honoured at once. Run in n8n's
 * engine against the sandbox, whose calls here last until a test ends them.
 */
import type { INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { allCalls, createAgent, getCall, placeCall, wire } from '../../support/api.cts';
import { loadPackage, rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox, type RecordedRequest } from '../../support/sandbox.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });

/** The GET /call requests the sandbox received, oldest first. */
async function callChecks(): Promise<RecordedRequest[]> {
	return (await sandbox.requests()).filter(
		(request: RecordedRequest) => request.method === 'GET' && request.path === '/v1/call',
	);
}

/** Ends the call once the node has checked it `checks` times: it then sees it ended at its next check. */
async function endAfterChecks(checks: number): Promise<string> {
	const [call] = await waitFor(
		`${checks} checks of a placed call`,
		async () => ((await callChecks()).length >= checks ? await allCalls(sandbox) : undefined),
		20_000,
	);
	const ended = await sandbox.control('POST', `/calls/${call.id}/complete`, {
		status: 'completed',
	});
	expect(ended.status).toBe(200);
	return call.id;
}

const waitOptions = (options: Record<string, unknown> = {}) => ({
	waitForEnd: true,
	firstCheckSeconds: 1,
	...options,
});

/**
 * `to`: a number no earlier test of the file called, where a test counts GET /call: the process's gate
 * asks the service for its last call to a number (a call of an earlier test) when the number is wanted again.
 */
function createAndWait(
	agentId: string,
	options: Record<string, unknown> = {},
	to = '+14155550123',
) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agentId),
		to,
		context: 'Renewal on December 1',
		options: waitOptions(options),
	};
}

describe('Call → Create, waiting for the call to end', () => {
	test('outputs the ended call in full, transcript included, after checks that grow further apart', async () => {
		const agent = await createAgent(sandbox, { name: 'Renewals' });
		await sandbox.clearRequests();

		const [run, callId] = await Promise.all([
			runWith(sandbox, createAndWait(agent.id)),
			endAfterChecks(2),
		]);

		const checks = await callChecks();
		const [call] = jsonOf(run);
		expect(call).toEqual({
			...(await getCall(sandbox, callId)),
			ended: true,
			placed_at: expect.any(String),
			end_seen_at: expect.any(String),
		});
		// n8n's clock: when the call was placed, and when the node saw it had ended.
		expect(Date.parse(call.end_seen_at) - Date.parse(call.placed_at)).toBeGreaterThan(0);
		expect(call.status).toBe('completed');
		expect(call.duration).toEqual(expect.any(Number));
		expect(call.transcript.map((entry: { text: string }) => entry.text).join('\n')).toContain(
			'Renewal on December 1',
		);
		expect(checks.map((check) => check.query)).toEqual(Array(3).fill({ id: callId }));
		const placedAt = Date.parse(
			(await sandbox.requests()).find(
				(request) => request.path === '/v1/call' && request.method === 'POST',
			)!.at,
		);
		const times = [placedAt, ...checks.map((check) => Date.parse(check.at))];
		const gaps = times.slice(1).map((time, n) => time - times[n]);
		// First check after 1 s, then 1.5 s, then 2.25 s.
		expect(gaps[0]).toBeGreaterThanOrEqual(950);
		expect(gaps[1]).toBeGreaterThanOrEqual(1_450);
		expect(gaps[2]).toBeGreaterThanOrEqual(2_200);
	});

	test('the maximum wait reached: the call as it is, with "ended": false; the call goes on', async () => {
		const agent = await createAgent(sandbox, { name: 'Renewals' });

		const started = Date.now();
		const run = await runWith(
			sandbox,
			createAndWait(agent.id, { maxWaitMinutes: 0.05 }, '+14155550124'),
		);
		const elapsed = Date.now() - started;

		const [call] = jsonOf(run);
		expect(call).toMatchObject({ status: 'in_progress', ended: false, ended_at: null });
		// Checks at 1 s, 2.5 s and at the end of the 3 s.
		expect(await callChecks()).toHaveLength(3);
		expect(elapsed).toBeGreaterThanOrEqual(3_000);
		expect(elapsed).toBeLessThan(6_000);
		expect((await getCall(sandbox, call.id)).status).toBe('in_progress');
	});

	test('the maximum wait reached, set to fail: an error for the item; On Error → Continue keeps it', async () => {
		const agent = await createAgent(sandbox, { name: 'Renewals' });

		const run = await runWith(
			sandbox,
			createAndWait(agent.id, { maxWaitMinutes: 0.02, onMaxWait: 'fail' }),
			{ continueOnFail: true },
		);

		const [item] = jsonOf(run);
		const [call] = await allCalls(sandbox);
		expect(item).toEqual({
			error: `The call ${call.id} had not ended after 0.02 minutes (status in_progress) [item 0]`,
		});
	});

	test('stopping the workflow stops the wait at once: no more checks, and the call is not touched', async () => {
		const agent = await createAgent(sandbox, { name: 'Renewals' });
		await sandbox.clearRequests();
		const placed = waitFor('the call to be placed', async () =>
			(await wire(sandbox)).some((request) => request.method === 'POST' && request.status === 200)
				? true
				: undefined,
		);
		let cancelledAt = 0;
		const cancel = placed.then(() => {
			cancelledAt = Date.now();
		});

		await runWith(sandbox, createAndWait(agent.id, { firstCheckSeconds: 10 }, '+14155550125'), {
			cancelWhen: cancel,
		});
		const stoppedAfter = Date.now() - cancelledAt;

		expect(cancelledAt).toBeGreaterThan(0);
		expect(stoppedAfter).toBeLessThan(1_000);
		await sleep(300);
		expect(await callChecks()).toEqual([]);
		const [call] = await allCalls(sandbox);
		expect(call.status).toBe('in_progress');
	});

	test('wrong wait options are input errors before any call is placed', async () => {
		const agent = await createAgent(sandbox, { name: 'Renewals' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, createAndWait(agent.id, { maxWaitMinutes: 0 }));

		expect(run.error?.message).toBe('Max Wait (Minutes) must be a number above 0 (got 0) [item 0]');
		expect(await wire(sandbox)).toEqual([]);
	});
});

describe('Call → Get, waiting for the call to end', () => {
	test('a call that has ended already: one request, "ended": true', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'failed' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'get',
			callId: call.id,
			options: waitOptions(),
		});

		expect(jsonOf(run)).toEqual([{ ...(await getCall(sandbox, call.id)), ended: true }]);
		expect(await callChecks()).toHaveLength(2); // the node's, then the test's own
	});

	test('a live call: waits until it has ended', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.clearRequests();

		const [run] = await Promise.all([
			runWith(sandbox, {
				resource: 'call',
				operation: 'get',
				callId: call.id,
				options: waitOptions(),
			}),
			endAfterChecks(2),
		]);

		const [ended] = jsonOf(run);
		expect(ended).toMatchObject({ id: call.id, status: 'completed', ended: true });
		expect(ended.transcript.length).toBeGreaterThan(0);
	});

	test('a check that fails for a while (5xx) does not end the wait: the next check comes as planned', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.clearRequests();

		const run = runWith(sandbox, {
			resource: 'call',
			operation: 'get',
			callId: call.id,
			options: waitOptions(),
		});
		// Once the node has read the call, its first check fails all its 6 attempts.
		await waitFor('the first read of the call', async () =>
			(await callChecks()).length > 0 ? true : undefined,
		);
		await sandbox.faults({ error_rate: 1, match: 'GET /call', times: 6 });
		await endAfterChecks(7);

		expect(jsonOf(await run)).toEqual([expect.objectContaining({ id: call.id, ended: true })]);
		expect((await callChecks()).map((check) => check.status)).toEqual([
			200,
			...Array(6).fill(500),
			200,
		]);
	}, 60_000);
});

describe('Wait for the Call to End: on when a builder adds it, off where it was never added', () => {
	test('Call → Create and Call → Get add the option switched on', async () => {
		const { properties } = (await loadPackage()).node('voiceAgent').description;
		const waitOption = (operation: string) =>
			(
				properties.find(
					(property) =>
						property.name === 'options' &&
						(property.displayOptions?.show?.operation as string[] | undefined)?.includes(operation),
				)?.options as INodeProperties[]
			).find((option) => option.name === 'waitForEnd');
		expect(waitOption('create')?.default).toBe(true);
		expect(waitOption('get')?.default).toBe(true);
	});

	// What n8n saves (parameters at their default left out; an option inside Options kept as set) is what
	// the saved node runs with: a workflow saved before keeps not waiting.
	test.each<[string, INodeParameters | undefined, string]>([
		['never added', {}, '+1415555017'],
		['no Options at all', undefined, '+1415555018'],
		['added, then switched off', { waitForEnd: false }, '+1415555019'],
	])(
		'a node saved with Wait for the Call to End %s does not wait: it outputs the call in progress',
		async (_, options, to) => {
			const { description } = (await loadPackage()).node('voiceAgent');
			const agent = await createAgent(sandbox);
			for (const typeVersion of [1, 1.4]) {
				const parameters: INodeParameters = {
					resource: 'call',
					operation: 'create',
					from: rl(agent.id),
					// A number of its own per case and version: the skip window would skip a number called before.
					to: `${to}${typeVersion === 1 ? 1 : 4}`,
					...(options ? { options } : {}),
				};
				const node = { name: 'Voice Agent', typeVersion } as INode;
				const saved = NodeHelpers.getNodeParameters(
					description.properties,
					parameters,
					false,
					false,
					node,
					description,
				) as INodeParameters;
				expect(saved.options).toEqual(options);

				const [call] = jsonOf(await runWith(sandbox, saved, { typeVersion }));
				expect(call).toMatchObject({ status: 'in_progress' });
				expect(call.ended).toBeUndefined();
			}
		},
	);
});
