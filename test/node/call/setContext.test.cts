/** Call → Set Context of the Voice Agent node, run in n8n's engine against both services the sandbox plays. */
import { createAgent, getCall, placeCall, wire } from '../../support/api.cts';
import { API_KEY, transcriptText } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { asOutput, callInProgress, endCallOf, PROFILES, textId } from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';

describe.each(PROFILES)('Call: Set Context, the %s service', (profile) => {
	// Calls last a minute unless a test completes them (a live one rings until connected), so none ends
	// while a test looks at it.
	const sandbox = useSandbox({
		apiKeys: [API_KEY],
		callDurationMs: 60_000,
		ringMs: 3_600_000,
		profile,
	});

	test('POST /call/context outputs the updated call; once completed its transcript mentions the new context', async () => {
		const agent = await createAgent(sandbox, { name: 'Updater' });
		const call = await callInProgress(sandbox, profile, agent, { context: 'Delivery on Monday' });
		const id = textId(call.id);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: id,
			context: 'Delivery moved to Wednesday',
		});

		const [updated] = jsonOf(run);
		// The call is read first: its state, and its id in the JSON type the service uses (the live one
		// wants a number back: "5001" would be a 400).
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/call', query: { id }, body: null, status: 200 },
			{
				method: 'POST',
				path: '/call/context',
				query: {},
				body: { id: call.id, context: 'Delivery moved to Wednesday' },
				status: 200,
			},
		]);
		expect(typeof call.id).toBe(profile === 'live' ? 'number' : 'string');
		const expected =
			profile === 'documented'
				? {
						id,
						agent_id: agent.id,
						from: agent.phone_number,
						to: call.to,
						context: 'Delivery moved to Wednesday',
						status: 'in_progress',
						created_at: call.created_at,
						updated_at: expect.any(String),
					}
				: asOutput(await getCall(sandbox, id), profile);
		expect(updated).toEqual(expected);
		expect(updated).toMatchObject({
			context: 'Delivery moved to Wednesday',
			status: 'in_progress',
		});

		await endCallOf(sandbox, profile, id);
		const [ended] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: id }),
		);
		expect(ended.status).toBe('completed');
		expect(transcriptText(ended)).toContain('Delivery moved to Wednesday');
	});

	test('on a call that has ended, nothing is sent and the error says it ended', async () => {
		const agent = await createAgent(sandbox, { name: 'Late' });
		const call = await callInProgress(sandbox, profile, agent);
		await endCallOf(sandbox, profile, call.id);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: textId(call.id),
			context: 'Too late',
		});

		expect(run.error?.message).toBe(
			`The call ${textId(call.id)} has ended (status completed): no context was sent [item 0]`,
		);
		// The live service would have accepted it and changed nothing the call hears.
		expect((await wire(sandbox)).map((request) => request.path)).toEqual(['/call']);
	});
});

describe('Call: Set Context, the live service', () => {
	const sandbox = useSandbox({ apiKeys: [API_KEY], ringMs: 3_600_000, profile: 'live' });

	test('a call that still rings takes the context it will start with', async () => {
		const agent = await createAgent(sandbox, { name: 'Updater' });
		const call = await placeCall(sandbox, agent, { context: 'Delivery on Monday' });

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: textId(call.id),
			context: 'Delivery moved to Wednesday',
		});

		expect(jsonOf(run)).toEqual([asOutput(await getCall(sandbox, textId(call.id)), 'live')]);
		expect(jsonOf(run)[0]).toMatchObject({
			status: 'ringing',
			context: 'Delivery moved to Wednesday',
		});
	});

	test('a call id the service does not hold (404 Call not found, in plain text): not found', async () => {
		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: '424242',
			context: 'Anything',
		});

		expect(run.error?.message).toBe('Call "424242" was not found');
		expect((await wire(sandbox)).map((request) => `${request.path} ${request.status}`)).toEqual([
			'/call 404',
		]);
	});
});
