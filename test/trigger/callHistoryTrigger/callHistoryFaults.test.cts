/**
 * The Voice Agent Call History Trigger when the service fails in the middle of a poll, and at its
 * bounds: what it could not finish is kept for the next poll, it reports an error only when it could
 * output nothing, and no call is output twice. Polled as n8n polls (see ./poll.cts).
 */
import { STATUS_CODES } from 'node:http';

import { createAgent, endCall, newEndedCalls, placeCall, wireLines } from '../../support/api.cts';
import { ids } from '../../support/fixtures.cts';
import { usePollTriggers } from './poll.cts';
import { startInterceptingProxy, type InterceptingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const start = usePollTriggers(sandbox);
let proxy: InterceptingProxy | undefined;
/** What the proxy fails: a route, or GET /call of one call ID, with a status. */
let failing:
	| { route?: string; callId?: string; status: number; unlisted?: boolean; foreign?: boolean }
	| undefined;

beforeAll(async () => {
	proxy = await startInterceptingProxy(sandbox.origin, (route, _earlier, url) => {
		if (!failing) return undefined;
		const { callId, status } = failing;
		if (failing.unlisted && route === 'GET /calls') {
			// The call is gone from the service: the list no longer shows it.
			return {
				rewrite: (page: any) => {
					const calls = page.calls.filter((call: any) => call.id !== callId);
					return { ...page, calls, num_items: calls.length };
				},
			};
		}
		const hit =
			route === failing.route ||
			(callId !== undefined && route === 'GET /call' && url.searchParams.get('id') === callId);
		if (!hit) return undefined;
		// A foreign answer is another server's (a load balancer's), without the service's error body.
		const body = failing.foreign
			? { status }
			: { error: STATUS_CODES[status], message: `Failed by the test proxy (${status})` };
		return { answer: { status, body } };
	});
});
afterAll(() => proxy?.close());
beforeEach(() => {
	failing = undefined;
});

/** A trigger whose requests go through the proxy, published, and an agent to place calls with. */
async function publishedThroughProxy(parameters = {}) {
	const trigger = await start(parameters, { baseUrl: `${proxy?.origin}/v1` });
	await trigger.activate();
	return { trigger, agent: await createAgent(sandbox) };
}

describe('a fault in the middle of a poll', () => {
	test('one call cannot be read: the others are output; it stays pending and is output once, at the next poll', async () => {
		const { trigger, agent } = await publishedThroughProxy();
		const calls = [await placeCall(sandbox, agent), await placeCall(sandbox, agent)];
		for (const call of calls) await endCall(sandbox, call.id);
		failing = { callId: calls[0].id, status: 400 };

		await trigger.poll();
		expect(trigger.emittedIds).toEqual([calls[1].id]);
		expect(trigger.pollErrors).toEqual([]);
		expect(trigger.savedState?.pending).toEqual([calls[0].id]);

		failing = undefined;
		await trigger.poll();
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([calls[1].id, calls[0].id]);
	});

	test('no call can be read: nothing is output, n8n is told why, and the calls are output at the next poll', async () => {
		const { trigger, agent } = await publishedThroughProxy();
		const call = await placeCall(sandbox, agent);
		await endCall(sandbox, call.id);
		failing = { route: 'GET /call', status: 400 };

		await trigger.poll();

		expect(trigger.executions).toEqual([]);
		expect(trigger.pollErrors.map((error) => error.message)).toEqual([
			'1 of 1 calls could not be fetched in full: The Voice Agent API rejected the request: Failed by the test proxy (400) (1 call)',
		]);
		expect((trigger.pollErrors[0] as any).description).toBe(
			`Not fetched: ${call.id}. They stay pending and are read again at the next poll.`,
		);
		failing = undefined;
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([call.id]);
	});

	test('the list cannot be read: calls already pending that ended are still output; new calls come at the next poll', async () => {
		const { trigger, agent } = await publishedThroughProxy();
		const pending = await placeCall(sandbox, agent);
		await trigger.poll();
		await endCall(sandbox, pending.id);
		const later = await placeCall(sandbox, agent);
		await endCall(sandbox, later.id);
		failing = { route: 'GET /calls', status: 400 };

		await trigger.poll();
		expect(trigger.emittedIds).toEqual([pending.id]);
		expect(trigger.pollErrors).toEqual([]);

		failing = undefined;
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([pending.id, later.id]);
	});

	test('the list cannot be read and nothing is pending: the poll reports the error and keeps its position', async () => {
		const { trigger, agent } = await publishedThroughProxy();
		const call = await placeCall(sandbox, agent);
		await endCall(sandbox, call.id);
		const before = trigger.nodeData;
		failing = { route: 'GET /calls', status: 400 };

		await trigger.poll();

		expect(trigger.pollErrors.map((error) => error.message)).toEqual([
			'The Voice Agent API rejected the request: Failed by the test proxy (400)',
		]);
		expect(trigger.nodeData).toEqual(before);
		failing = undefined;
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([call.id]);
	});

	test('a short outage of the list (three 500s) is ridden out within the poll', async () => {
		const { trigger } = await publishedThroughProxy();
		const fresh = await newEndedCalls(sandbox, 3);
		await sandbox.faults({ error_rate: 1, match: 'GET /calls', times: 3 });
		await sandbox.clearRequests();

		await trigger.poll();

		expect(trigger.emittedIds).toEqual(ids(fresh).reverse());
		expect((await wireLines(sandbox)).slice(0, 4)).toEqual([
			'GET /calls 500',
			'GET /calls 500',
			'GET /calls 500',
			'GET /calls 200',
		]);
	});

	test('20 consecutive 500s on GET /call while 150 ended calls are read: all are output, once', async () => {
		const { trigger } = await publishedThroughProxy();
		const fresh = await newEndedCalls(sandbox, 150);
		await sandbox.faults({ error_rate: 1, match: 'GET /call', times: 20 });

		await trigger.poll();
		await trigger.poll();

		expect(trigger.emittedIds).toEqual(ids(fresh).reverse());
		expect(trigger.pollErrors).toEqual([]);
	}, 60_000);

	test('a call that no longer exists (404) while pending is dropped, not read again and again', async () => {
		const { trigger, agent } = await publishedThroughProxy();
		const call = await placeCall(sandbox, agent);
		await trigger.poll();
		expect(trigger.state?.pending).toEqual([call.id]);
		failing = { callId: call.id, status: 404, unlisted: true };

		await trigger.poll();
		expect(trigger.state?.pending).toEqual([]);
		await sandbox.clearRequests();
		await trigger.poll();

		expect(await wireLines(sandbox)).toEqual(['GET /calls 200']);
		expect(trigger.executions).toEqual([]);
		expect(trigger.pollErrors).toEqual([]);
	});

	test("another server's 404 for a pending call (a proxy, a load balancer) drops nothing: the call is output once the service answers", async () => {
		const { trigger, agent } = await publishedThroughProxy();
		const call = await placeCall(sandbox, agent);
		await trigger.poll();
		await endCall(sandbox, call.id);
		failing = { callId: call.id, status: 404, foreign: true };

		await trigger.poll();
		expect(trigger.state?.pending).toEqual([call.id]);
		expect(trigger.executions).toEqual([]);
		expect(trigger.pollErrors.map((error) => error.message)).toEqual([
			"1 of 1 calls could not be fetched in full: GET /call was not found: the credential's Base URL does not answer like the Voice Agent API; set the Base URL to the API address including /v1, e.g. https://api.example.com/v1 (1 call)",
		]);

		failing = undefined;
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([call.id]);
		expect(trigger.state?.pending).toEqual([]);
	});

	test("a wrong API key: publishing fails with the service's reason, and nothing is saved", async () => {
		const trigger = await start({}, { apiKey: 'not-the-key' });

		await expect(trigger.activate()).rejects.toThrow(
			'The Voice Agent API rejected the API key (401 Unauthorized): check the API key of the Voice Agent API credential',
		);
		expect(trigger.savedNodeData).toEqual({});
	});
});

describe('bounds of the saved state', () => {
	test('at most 500 call IDs remembered as the position, the newest', async () => {
		const trigger = await start({ event: 'newCall' });
		await trigger.activate();
		const fresh = await newEndedCalls(sandbox, 620);

		await trigger.poll();

		expect(trigger.emitted).toHaveLength(620);
		expect(trigger.savedState?.seen).toEqual(ids(fresh).slice(0, 500));
	});
});
