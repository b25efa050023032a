/** Call → Get of the Voice Agent node, run in n8n's engine against both services the sandbox plays. */
import { createAgent, placeCall, wire } from '../../support/api.cts';
import { API_KEY, transcriptLines, transcriptText } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import {
	asOutput,
	callInProgress,
	endCallOf,
	PROFILES,
	systemMessagesOfRow,
	textId,
} from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';

describe.each(PROFILES)('Call: Get, the %s service', (profile) => {
	// Calls last a minute unless a test completes them (a live one rings until connected), so none ends
	// while a test looks at it.
	const sandbox = useSandbox({
		apiKeys: [API_KEY],
		callDurationMs: 60_000,
		ringMs: 3_600_000,
		profile,
	});

	test('GET /call?id=...; after the call completes the output has its transcript', async () => {
		const agent = await createAgent(sandbox, { name: 'Clinic' });
		const call = await callInProgress(sandbox, profile, agent, {
			context: 'Cleaning on Tuesday at 10:00',
		});
		const id = textId(call.id);
		await sandbox.clearRequests();

		const live = jsonOf(await runWith(sandbox, { resource: 'call', operation: 'get', callId: id }));
		expect(live).toEqual([asOutput(call, profile)]);
		expect(live[0].status).toBe('in_progress');
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/call', query: { id }, body: null, status: 200 },
		]);

		const row = await endCallOf(sandbox, profile, id);
		const [ended] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: id }),
		);

		expect(ended).toEqual(asOutput(row, profile));
		expect(ended).toMatchObject({
			id,
			status: 'completed',
			ended_at: expect.any(String),
			duration: expect.any(Number),
		});
		expect(ended.transcript.length).toBeGreaterThan(2);
		for (const entry of ended.transcript) expect(['agent', 'customer']).toContain(entry.speaker);
		expect(transcriptText(ended)).toContain('Cleaning on Tuesday at 10:00');
	});

	test('Transcript Format Text with Include System Messages: Agent/Customer lines; the prompt only in system_messages', async () => {
		const agent = await createAgent(sandbox, { name: 'Clinic', system_prompt: 'You book visits.' });
		const call = await callInProgress(sandbox, profile, agent, { context: 'Cleaning on Tuesday' });
		const row = await endCallOf(sandbox, profile, call.id);

		const [output] = jsonOf(
			await runWith(sandbox, {
				resource: 'call',
				operation: 'get',
				callId: textId(call.id),
				options: { transcriptFormat: 'text', includeSystemMessages: true },
			}),
		);

		const expected = asOutput(row, profile);
		expect(output.transcript_text).toBe(transcriptLines(expected));
		expect(output).not.toHaveProperty('transcript');
		expect(output.system_messages).toEqual(profile === 'live' ? systemMessagesOfRow(row) : []);
		expect(output.transcript_text).not.toContain('You book visits.');
		if (profile === 'live') expect(output.system_messages.join('\n')).toContain('You book visits.');
	});

	test('a call the service does not hold: not found, naming the call', async () => {
		const missing = profile === 'live' ? '999999' : 'call_missing';

		const run = await runWith(sandbox, { resource: 'call', operation: 'get', callId: missing });

		expect(run.error?.message).toBe(`Call "${missing}" was not found`);
		expect(run.error?.httpCode).toBe('404');
	});
});

describe('Call: Get, the live service', () => {
	const sandbox = useSandbox({ apiKeys: [API_KEY], ringMs: 3_600_000, profile: 'live' });

	test('a call that rings: status ringing, no to, no end, no duration (the zero times read as none)', async () => {
		const agent = await createAgent(sandbox, { name: 'Clinic' });
		const call = await placeCall(sandbox, agent, { to: '+14155550123' });
		expect(call.ended_at).toBe('0001-01-01T00:00:00Z');

		const [output] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: textId(call.id) }),
		);

		expect(output).toEqual(asOutput(call, 'live'));
		expect(output).toMatchObject({
			id: textId(call.id),
			agent_id: textId(agent.id),
			status: 'ringing',
			ended_at: null,
			started_at: null,
			duration: null,
			transcript: null,
		});
		expect(output).not.toHaveProperty('to');
	});

	test('a route the Base URL does not have (404 page not found) reads as another server, not as a missing call', async () => {
		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'get', callId: '5001' },
			{ baseUrl: `${sandbox.origin}/v2` },
		);

		expect(run.error?.message).toBe(
			"GET /call was not found: the credential's Base URL does not answer like the Voice Agent API; set the Base URL to the API address including /v1, e.g. https://api.example.com/v1",
		);
	});
});
