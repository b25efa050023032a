/**
 * How Call → Create recovers from failures whose outcome it cannot see: it never places a call twice.
 * Run in n8n's engine.
 */
import { allCalls, createAgent, getCall, placeCall, wireLines } from '../../support/api.cts';
import { expectNoKey } from '../../support/errors.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, runWith } from '../../support/node.cts';
import { startInterceptingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('Call: Create never places a call twice', () => {
	let agent: any;

	beforeEach(async () => {
		agent = await createAgent(sandbox, { name: 'Dialler' });
		await sandbox.clearRequests();
	});

	test('a 5xx before the service acted: one POST /call, no call, and an error saying it may not have been placed', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'before', times: 1 });

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl(agent.id),
			to: '+14155550123',
			context: 'Once only',
		});

		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(
			/^The call to \+14155550123 may not have been placed: check the call list before retrying \(/,
		);
		expect(run.error?.description).toMatch(/so that nobody is phoned twice/);
		const lines = await wireLines(sandbox);
		expect(lines.filter((line) => line.startsWith('POST /call'))).toEqual(['POST /call 500']);
		expect(lines[0]).toBe('GET /agent 200');
		// Before giving up it looked for the call in the list (three times, as the service may be slow to show it).
		expect(lines.slice(lines.indexOf('POST /call 500') + 1)).toEqual(
			Array(3).fill('GET /calls 200'),
		);
		expect(await allCalls(sandbox)).toEqual([]);
		expectNoKey(run);
	});

	test.each([
		['a 500 answer', { error_rate: 1, status: 500 }, 'POST /call 500'],
		['a dropped connection', { reset_rate: 1 }, 'POST /call null'],
	])(
		'%s after the service placed the call: one POST /call, and the node outputs the call it found',
		async (_label, fault, postLine) => {
			await sandbox.faults({ ...fault, match: 'POST /call', when: 'after', times: 1 });

			const run = await runWith(sandbox, {
				resource: 'call',
				operation: 'create',
				from: rl(agent.id),
				to: '+14155550123',
				context: 'Exactly once',
			});

			const calls = await allCalls(sandbox);
			expect(calls).toHaveLength(1);
			const [call] = jsonOf(run);
			expect(call).toEqual(await getCall(sandbox, calls[0].id));
			expect(call).toMatchObject({
				from: agent.phone_number,
				to: '+14155550123',
				context: 'Exactly once',
				status: 'in_progress',
			});
			const lines = await wireLines(sandbox);
			expect(lines.filter((line) => line.startsWith('POST /call'))).toEqual([postLine]);
			// The recovery: the call list after the failure shows the new call, which is then read in full.
			expect(lines.slice(lines.indexOf(postLine) + 1, lines.indexOf(postLine) + 3)).toEqual([
				'GET /calls 200',
				'GET /call 200',
			]);
		},
	);

	test('placed, but the call list fails too while looking for it: still the may-not-have-been-placed error', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'after', times: 1 });
		// After the POST, the call list answers 500 to every request.
		const proxy = await startInterceptingProxy(sandbox.origin, (route, earlier) =>
			route === 'GET /calls' && earlier.includes('POST /call')
				? { answer: { status: 500, body: { error: 'Internal Server Error', message: 'Down' } } }
				: undefined,
		);
		try {
			const run = await runWith(
				sandbox,
				{
					resource: 'call',
					operation: 'create',
					from: rl(agent.id),
					to: '+14155550123',
					context: 'Exactly once',
				},
				{ baseUrl: `${proxy.origin}/v1` },
			);

			expect(run.items).toEqual([]);
			expect(run.error?.message).toMatch(
				/^The call to \+14155550123 may not have been placed: check the call list before retrying \(The Voice Agent service failed to process POST \/call \(500\)/,
			);
			expect(run.error?.description).toContain(
				'Looking for it failed too: The Voice Agent service failed to process GET /calls (500): Down.',
			);
			expect(run.error?.description).toMatch(/so that nobody is phoned twice/);
			// The call was placed, once: the error must not invite a blind retry.
			expect(await allCalls(sandbox)).toHaveLength(1);
			expect(proxy.routes.filter((route) => route === 'POST /call')).toHaveLength(1);
			expect(proxy.routes.slice(proxy.routes.indexOf('POST /call') + 1)).toEqual(
				Array(6).fill('GET /calls'),
			);
			expectNoKey(run);
		} finally {
			await proxy.close();
		}
	});

	test('an earlier call to the same number is not mistaken for the one that failed', async () => {
		const earlier = await placeCall(sandbox, agent, { to: '+14155550123', context: 'Same words' });
		await sandbox.clearRequests();
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'after', times: 1 });

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'create',
			from: rl(agent.id),
			to: '+14155550123',
			context: 'Same words',
		});

		const [call] = jsonOf(run);
		expect(call.id).not.toBe(earlier.id);
		expect((await allCalls(sandbox)).map((listed) => listed.id)).toEqual([call.id, earlier.id]);
	});

	describe('a POST /call answered 429 placed nothing, whatever stops the node during its wait', () => {
		const refusal = (seconds: number) => ({
			answer: {
				status: 429,
				headers: { 'retry-after': String(seconds) },
				body: { error: 'Too Many Requests', message: 'Slow down' },
			},
		});
		const parameters = {
			resource: 'call',
			operation: 'create',
			from: rl('={{ $json.agent }}'),
			to: '={{ $json.to }}',
			skipCalledWithinMinutes: 0,
			options: { callsAtOnce: 2 },
		};
		const postsOf = (routes: readonly string[]) =>
			routes.filter((route) => route === 'POST /call').length;

		test('the workflow stopped during the wait: Retry execution dials the number, once', async () => {
			let answered!: () => void;
			const refused = new Promise<void>((resolve) => (answered = resolve));
			const proxy = await startInterceptingProxy(sandbox.origin, (route, earlier) => {
				if (route !== 'POST /call' || postsOf(earlier) > 0) return undefined;
				answered();
				return refusal(4);
			});
			try {
				const options = {
					parameters,
					credentials: { apiKey: API_KEY, baseUrl: `${proxy.origin}/v1` },
					input: [{ agent: agent.id, to: '+14155550123' }],
					typeVersion: 1.3,
				};
				// Stopped a second into the 4 s the service asked to wait: long after its 429 came back.
				const stopped = await runNode({
					...options,
					executionId: '401',
					cancelWhen: refused.then(() => sleep(1_000)),
				});
				expect(stopped.error?.message).toBe('The execution was cancelled');
				expect(await allCalls(sandbox)).toEqual([]);

				const retried = await runNode({ ...options, executionId: '402', retryOf: stopped.run });
				const [call] = jsonOf(retried);
				expect(call).toMatchObject({ to: '+14155550123', outcome: 'placed' });
				expect(call).not.toHaveProperty('skipped');
				expect(await allCalls(sandbox)).toHaveLength(1);
				expect(postsOf(proxy.routes)).toBe(2);
			} finally {
				await proxy.close();
			}
		});

		test('the batch stopped by another item during the wait: Retry On Fail dials both numbers, once each', async () => {
			// The first POST waits until the second arrives: then one is answered 429, the other 400.
			let second!: () => void;
			const arrived = new Promise<void>((resolve) => (second = resolve));
			const proxy = await startInterceptingProxy(sandbox.origin, async (route, earlier) => {
				if (route !== 'POST /call' || postsOf(earlier) > 1) return undefined;
				if (postsOf(earlier) === 0) {
					await arrived;
					return refusal(2);
				}
				second();
				return { answer: { status: 400, body: { error: 'Bad Request', message: 'Refused' } } };
			});
			try {
				const result = await runNode({
					parameters,
					credentials: { apiKey: API_KEY, baseUrl: `${proxy.origin}/v1` },
					input: [
						{ agent: agent.id, to: '+14155550101' },
						{ agent: agent.id, to: '+14155550102' },
					],
					typeVersion: 1.3,
					settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
				});
				const items = jsonOf(result);
				expect(items.map((item) => [item.to, item.outcome])).toEqual([
					['+14155550101', 'placed'],
					['+14155550102', 'placed'],
				]);
				expect((await allCalls(sandbox)).map((call) => call.client_number).sort()).toEqual([
					'+14155550101',
					'+14155550102',
				]);
				expect(postsOf(proxy.routes)).toBe(4);
			} finally {
				await proxy.close();
			}
		});
	});
});
