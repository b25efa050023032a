/**
 * The Call History Trigger keeps every call it took until it is output or the service says it is gone:
 * calls in progress and calls that could not be read are never dropped to fit its saved state. At its
 * bound it stops taking new calls and says so; it never forgets one. Polled as n8n polls (./poll.cts).
 */
import { STATUS_CODES } from 'node:http';

import { endCall, latestCalls, newEndedCalls } from '../../support/api.cts';
import { ids } from '../../support/fixtures.cts';
import { startInterceptingProxy, type InterceptingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { usePollTriggers } from './poll.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const start = usePollTriggers(sandbox);
let proxy: InterceptingProxy | undefined;
/** Call IDs whose GET /call another server (a proxy) answers 404: they cannot be read, and are not retried. */
let unreadable = new Set<string>();

beforeAll(async () => {
	proxy = await startInterceptingProxy(sandbox.origin, (route, _earlier, url) => {
		if (route !== 'GET /call' || !unreadable.has(url.searchParams.get('id') ?? ''))
			return undefined;
		return { answer: { status: 404, body: { status: 404, reason: STATUS_CODES[404] } } };
	});
});
afterAll(() => proxy?.close());
beforeEach(() => {
	unreadable = new Set();
});

function throughProxy(parameters = {}) {
	return start(parameters, { baseUrl: `${proxy?.origin}/v1` });
}

/** Seeds calls in progress in chunks (the sandbox seeds at most 1,000 at once); `durationMs` each. */
async function seedLive(count: number, durationMs?: number) {
	for (let left = count; left > 0; left -= 1_000)
		await sandbox.seed({ live_calls: Math.min(1_000, left), call_duration_ms: durationMs });
}

/** `count` new calls that have ended by the time it returns, newest first. */
async function endedCalls(count: number) {
	await seedLive(count - 1_000, 1);
	return await newEndedCalls(sandbox, 1_000).then(async () => await latestCalls(sandbox, count));
}

function emittedOnce(emitted: string[], expected: string[]) {
	expect([...emitted].sort()).toEqual([...expected].sort());
	expect(new Set(emitted).size).toBe(emitted.length);
}

describe('calls that cannot be read yet', () => {
	test('2,100 ended calls, 60% unreadable until the service recovers: every call is output once, none dropped', async () => {
		const trigger = await throughProxy();
		await trigger.activate();
		const fresh = ids(await endedCalls(2_100));
		unreadable = new Set(fresh.filter((_, index) => index % 5 < 3));

		// The position moves by Max Calls per Poll (1,000); what cannot be read stays pending.
		await trigger.poll();
		await trigger.poll();
		expect(trigger.emittedIds).toHaveLength(800);
		expect(trigger.state?.pending).toHaveLength(1_200);
		expect(trigger.savedState?.pending).toHaveLength(1_200);

		unreadable = new Set();
		await trigger.poll();

		emittedOnce(trigger.emittedIds, fresh);
		expect(trigger.state?.pending).toEqual([]);
	}, 120_000);
});

describe('calls in progress at once', () => {
	test('1,050 calls in progress at once: all are kept, and each is output once when it ends', async () => {
		const trigger = await start();
		await trigger.activate();
		await seedLive(1_050);

		await trigger.poll();
		await trigger.poll();
		const live = ids(await latestCalls(sandbox, 1_050));
		expect([...(trigger.state?.pending ?? [])].sort()).toEqual([...live].sort());

		for (const id of live) await endCall(sandbox, id, 'no-answer');
		await trigger.poll();

		emittedOnce(trigger.emittedIds, live);
		expect(trigger.state?.pending).toEqual([]);
	}, 120_000);

	test('at the bound (10,000 pending) the position stops, the poll says why, and nothing is forgotten', async () => {
		const trigger = await start();
		await trigger.activate();
		await seedLive(10_050);

		for (let poll = 0; poll < 10; poll++) await trigger.poll();
		expect(trigger.state?.pending).toHaveLength(10_000);
		expect(trigger.pollErrors).toEqual([]);

		await trigger.poll();
		expect(trigger.pollErrors.map((error) => error.message)).toEqual([
			'10,000 calls are waiting to be output (in progress, or not read yet): the trigger keeps at most 10,000, so newer calls wait in the list until some of these end',
		]);
		const all = ids(await latestCalls(sandbox, 10_050));
		const newest = all.slice(0, 50);
		// Nothing above the bound is marked as seen: the 50 newest calls are still ahead of the position.
		expect(trigger.state?.seen.some((id) => newest.includes(id))).toBe(false);
		// Saved static data at the bound, as n8n writes it with the workflow.
		expect(JSON.stringify(trigger.savedNodeData).length).toBeLessThan(260_000);

		const oldest = trigger.state?.pending.slice(0, 100) ?? [];
		for (const id of oldest) await endCall(sandbox, id);
		await trigger.poll();
		expect(trigger.emittedIds).toEqual(oldest);
		// Room again: the 50 newest calls are taken, oldest first, behind the others.
		await trigger.poll();
		expect(trigger.state?.pending).toHaveLength(9_950);
		expect(trigger.state?.pending.slice(-50)).toEqual([...newest].reverse());
		expect(trigger.state?.seen[0]).toBe(newest[0]);
	}, 240_000);
});
