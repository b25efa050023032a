/** Call → Get Many with Include Transcripts, run in n8n's engine against the sandbox, through a proxy that counts requests in flight. */
import { allCalls, getCall, wire } from '../../support/api.cts';
import {
	asOutput,
	everyCall,
	PROFILES,
	seedCalls,
	systemMessagesOfRow,
	textId,
} from '../../support/profiles.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useCountingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';

describe.each(PROFILES)('Call: Get Many with Include Transcripts, the %s service', (profile) => {
	const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000, profile });

	test('outputs the full record of every call in list order, keeping client_number', async () => {
		await seedCalls(sandbox, profile, { agents: 2, calls: 25 });
		const summaries = await everyCall(sandbox, profile);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			options: { includeTranscripts: true, transcriptConcurrency: 3 },
		});

		const calls = jsonOf(run);
		expect(calls.map((call) => call.id)).toEqual(summaries.map((call) => textId(call.id)));
		// One read of the credential for the run, not one per request.
		expect(run.credentialReads).toBe(1);
		const requests = await wire(sandbox);
		expect(requests.filter((request) => request.path === '/calls')).toHaveLength(1);
		const fetched = requests
			.filter((request) => request.path === '/call')
			.map((request) => request.query.id);
		expect(new Set(fetched)).toEqual(new Set(calls.map((call) => call.id)));
		expect(fetched).toHaveLength(25);
		for (const [index, call] of calls.entries()) {
			const full = asOutput(await getCall(sandbox, call.id), profile);
			expect(call).toEqual({ ...asOutput(summaries[index], profile), ...full });
			// Completed calls have their transcript (the live one without its system message); the others none.
			if (call.status === 'completed') {
				expect(call.client_number).toBe(full.to);
				expect(call.transcript.length).toBeGreaterThan(2);
				expect(
					call.transcript.every((turn: any) => ['agent', 'customer'].includes(turn.speaker)),
				).toBe(true);
			} else if (profile === 'documented')
				expect(call).toMatchObject({ status: 'failed', transcript: [] });
			else
				expect(call).toMatchObject({ status: 'not_connected', transcript: null, duration: null });
		}
		expect(calls.filter((call) => call.status === 'completed').length).toBeGreaterThan(10);
	});

	test('Include System Messages: each call with its system messages apart, never in its transcript', async () => {
		await seedCalls(sandbox, profile, { agents: 1, calls: 8 });
		const rows = await everyCall(sandbox, profile);

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			options: { includeTranscripts: true, includeSystemMessages: true, transcriptFormat: 'both' },
		});

		const calls = jsonOf(run);
		expect(calls).toHaveLength(8);
		for (const [index, call] of calls.entries()) {
			const full = await getCall(sandbox, call.id);
			expect(call.system_messages).toEqual(systemMessagesOfRow(full));
			for (const message of call.system_messages) {
				expect(call.transcript_text).not.toContain(message);
				expect(JSON.stringify(call.transcript)).not.toContain(JSON.stringify(message));
			}
			expect(call.id).toBe(textId(rows[index].id));
		}
		if (profile === 'live')
			expect(calls.some((call) => call.system_messages.length > 0)).toBe(true);
	});
});

describe('Call: Get Many with Include Transcripts, the fan-out', () => {
	// The fan-out is the transport's, whatever the service's rows look like: the documented service.
	const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });
	const proxy = useCountingProxy(sandbox);

	describe('Include Transcripts', () => {
		test("under the service's rate limit every call is fetched, and after a 429 no request starts before its Retry-After", async () => {
			await sandbox.seed({ agents: 1, calls: 40 });
			// 10 requests per second: the first 10 pass at once, the other 30 need about 3 more seconds.
			await sandbox.faults({ rate_limit_per_s: 10, match: 'GET /call' });
			const summaries = await allCalls(sandbox);
			await sandbox.clearRequests();

			const run = await runWith(sandbox, {
				resource: 'call',
				operation: 'getMany',
				returnAll: true,
				options: { includeTranscripts: true },
			});

			const calls = jsonOf(run);
			expect(calls.map((call) => call.id)).toEqual(summaries.map((call) => call.id));
			expect(calls.every((call) => Array.isArray(call.transcript))).toBe(true);
			const fetches = (await sandbox.requests()).filter((request) => request.path === '/v1/call');
			const arrivals = fetches.map((request) => Date.parse(request.at));
			const refusals = fetches.filter((request) => request.status === 429);
			expect(refusals.length).toBeGreaterThan(0);
			expect(fetches.filter((request) => request.status === 200)).toHaveLength(40);
			// Requests already under way when a 429 comes back still arrive; nothing new starts until the
			// Retry-After (1 s) has passed.
			for (const refusal of refusals) {
				const refusedAt = Date.parse(refusal.at);
				const during = arrivals.filter((at) => at > refusedAt + 200 && at < refusedAt + 950);
				expect(during).toEqual([]);
			}
		}, 30_000);

		test.each([
			{ label: '1', bound: 1, limit: 4, option: 1, latencyMs: 250 },
			{ label: '4', bound: 4, limit: 10, option: 4, latencyMs: 250 },
			{ label: '100 (the maximum)', bound: 100, limit: 250, option: 100, latencyMs: 1000 },
			{ label: 'not set (default 50)', bound: 50, limit: 130, option: undefined, latencyMs: 500 },
		])(
			'Max Requests in Parallel $label: never more GET /call requests in flight than that, and it gets there',
			async ({ bound, limit, option, latencyMs }) => {
				await sandbox.seed({ agents: 1, calls: limit });
				// Each GET /call takes far longer than starting the next ones, even a hundred of them on a busy machine, so
				// latency does not rise and the bound is reached; the limit starts at 4 and doubles per round
				// (4 + 8 + 16 + 32 + 64 calls reach 100).
				await sandbox.faults({ latency_ms: latencyMs, match: 'GET /call' });

				const run = await runWith(
					sandbox,
					{
						resource: 'call',
						operation: 'getMany',
						returnAll: false,
						limit,
						options:
							option === undefined
								? { includeTranscripts: true }
								: { includeTranscripts: true, transcriptConcurrency: option },
					},
					{ baseUrl: `${proxy.origin}/v1` },
				);

				const calls = jsonOf(run);
				expect(calls).toHaveLength(limit);
				expect(calls.map((call) => call.id)).toEqual(
					(await allCalls(sandbox)).slice(0, limit).map((call) => call.id),
				);
				expect(calls.every((call) => Array.isArray(call.transcript))).toBe(true);
				expect(proxy.maxInFlight('GET /call')).toBe(bound);
				expect(proxy.maxInFlight('GET /calls')).toBe(1);
			},
		);
	});
});
