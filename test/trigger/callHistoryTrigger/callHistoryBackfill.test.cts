/**
 * Start From All History and Last Days over a history of any size: a backfill that takes at most Max
 * Calls per Poll each poll, saves its position with each execution, and resumes where it stopped after a
 * restart, a failure in the middle of a batch, or a cursor the service no longer accepts. Polled as n8n
 * polls (see ./poll.cts), against both services the sandbox plays: the live one's cursor is a time with a
 * seam, which the backfill reads again across polls.
 */
import { createAgent, placeCall } from '../../support/api.cts';
import {
	endCallOf,
	everyCall,
	newEndedCallsOf,
	PROFILES,
	seedCalls,
	textId,
} from '../../support/profiles.cts';
import { startInterceptingProxy, type InterceptingProxy } from '../../support/proxy.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { usePollTriggers } from './poll.cts';

const idsOf = (calls: { id?: unknown }[]) => calls.map((call) => textId(call.id));

/** Tests that read hundreds to thousands of calls in full: on a loaded 2-core machine they take a while. */
const HEAVY_MS = 120_000;

describe.each(PROFILES)('the %s service', (profile) => {
	const sandbox = useSandbox({ callDurationMs: 3_600_000, profile });
	const start = usePollTriggers(sandbox);
	let proxy: InterceptingProxy | undefined;
	/** What the proxy refuses on GET /calls: cursors the service no longer accepts, or pages after a count. */
	let refusedCursors = new Set<string>();
	/** Cursors refused once each: expired, as one the service gives again later is not. */
	let expiredOnce = new Set<string>();
	let failListAfter: { pages: number; status: number } | undefined;
	let listPages = 0;

	beforeAll(async () => {
		proxy = await startInterceptingProxy(sandbox.origin, (route, _earlier, url) => {
			if (route !== 'GET /calls') return undefined;
			listPages++;
			const cursor = url.searchParams.get('cursor');
			if (cursor !== null && (refusedCursors.has(cursor) || expiredOnce.delete(cursor)))
				return {
					answer: { status: 400, body: { error: 'Bad Request', message: 'cursor has expired' } },
				};
			if (failListAfter && listPages > failListAfter.pages)
				return {
					answer: {
						status: failListAfter.status,
						body: { error: 'Unauthorized', message: 'Invalid API key' },
					},
				};
			return undefined;
		});
	});
	afterAll(() => proxy?.close());
	beforeEach(() => {
		refusedCursors = new Set();
		expiredOnce = new Set();
		failListAfter = undefined;
		listPages = 0;
	});

	function throughProxy(parameters = {}) {
		return start(parameters, { baseUrl: `${proxy?.origin}/v1` });
	}

	/** The ended history, oldest first (`perSecond`: calls placed that many a second). */
	async function seededHistory(calls: number, perSecond?: number): Promise<string[]> {
		await seedCalls(
			sandbox,
			profile,
			perSecond ? { calls, calls_per_second: perSecond } : { calls },
		);
		return idsOf(await everyCall(sandbox, profile)).reverse();
	}

	describe('All History in batches of Max Calls per Poll', () => {
		test(
			'2,500 calls: 1,000 per poll, newest batch first and each batch oldest first; every call once',
			async () => {
				const history = await seededHistory(2_500);
				const trigger = await start({ options: { startFrom: 'allHistory' } });

				await trigger.activate();
				await trigger.poll();
				await trigger.poll();
				await trigger.poll();

				expect(trigger.executions.map((execution) => execution.items.length)).toEqual([
					1_000, 1_000, 500,
				]);
				expect(trigger.executions.map((execution) => idsOf(execution.items))).toEqual([
					history.slice(1_500),
					history.slice(500, 1_500),
					history.slice(0, 500),
				]);
				expect(trigger.savedState?.backfill).toBeUndefined();
			},
			HEAVY_MS,
		);

		test(
			'the position is saved with each batch: a restart goes on from the next batch, none twice',
			async () => {
				const history = await seededHistory(1_200);
				const trigger = await start({ options: { startFrom: 'allHistory', maxCallsPerPoll: 500 } });
				await trigger.activate();
				expect(trigger.savedState?.backfill?.cursor).toEqual(expect.any(String));

				await trigger.restart();
				await trigger.restart();

				expect(trigger.executions.map((execution) => idsOf(execution.items))).toEqual([
					history.slice(700),
					history.slice(200, 700),
					history.slice(0, 200),
				]);
			},
			HEAVY_MS,
		);

		test('calls placed while the backfill runs are output too, once, and calls in progress when they end', async () => {
			const history = await seededHistory(250);
			const agent = await createAgent(sandbox);
			const live = textId((await placeCall(sandbox, agent)).id);
			const trigger = await start({ options: { startFrom: 'allHistory', maxCallsPerPoll: 100 } });
			await trigger.activate();
			const fresh = idsOf(await newEndedCallsOf(sandbox, profile, 30)).reverse();
			await endCallOf(sandbox, profile, live, 'voicemail');

			for (let poll = 0; poll < 4; poll++) await trigger.poll();

			expect([...trigger.emittedIds].sort()).toEqual([...history, live, ...fresh].sort());
			expect(new Set(trigger.emittedIds).size).toBe(trigger.emittedIds.length);
			// A live call has no end status: it ended, so it is completed.
			expect(trigger.emitted.find((item) => item.id === live)?.status).toBe(
				profile === 'live' ? 'completed' : 'voicemail',
			);
		});

		test(
			'a 401 in the middle of a batch: the pages read before it are output and saved; the rest comes at the next poll',
			async () => {
				const history = await seededHistory(600);
				const trigger = await throughProxy({
					options: { startFrom: 'allHistory', maxCallsPerPoll: 500 },
				});
				failListAfter = { pages: 3, status: 401 };

				await trigger.activate();
				expect(idsOf(trigger.emitted)).toEqual(history.slice(300));
				expect(trigger.savedState?.backfill?.last.at(-1)).toBe(history[300]);

				await trigger.poll();
				expect(trigger.pollErrors.map((error) => error.message)).toEqual([
					expect.stringContaining('401'),
				]);
				failListAfter = undefined;
				await trigger.poll();

				expect(trigger.emittedIds).toEqual([...history.slice(300), ...history.slice(0, 300)]);
			},
			HEAVY_MS,
		);

		test(
			'a cursor the service refuses (expired): the list is paged again from the top down to the last calls taken, none lost or twice',
			async () => {
				const history = await seededHistory(700);
				const trigger = await throughProxy({
					options: { startFrom: 'allHistory', maxCallsPerPoll: 250 },
				});
				await trigger.activate();
				const fresh = idsOf(await newEndedCallsOf(sandbox, profile, 120)).reverse();
				refusedCursors = new Set([trigger.savedState?.backfill?.cursor as string]);

				for (let poll = 0; poll < 4; poll++) await trigger.poll();

				expect([...trigger.emittedIds].sort()).toEqual([...history, ...fresh].sort());
				expect(new Set(trigger.emittedIds).size).toBe(trigger.emittedIds.length);
				expect(trigger.pollErrors).toEqual([]);
				expect(trigger.savedState?.backfill).toBeUndefined();
			},
			HEAVY_MS,
		);
	});

	describe('Last Days in batches', () => {
		test(
			'the window is fixed when the backfill starts: every call of the last N days once, nothing older',
			async () => {
				await sandbox.seed({ calls: 600 });
				const history = await everyCall(sandbox, profile);
				const trigger = await start({
					options: { startFrom: 'lastDays', startFromDays: 14, maxCallsPerPoll: 50 },
				});

				await trigger.activate();
				for (let poll = 0; poll < 10; poll++) await trigger.poll();

				const since = Date.now() - 14 * 24 * 3_600_000;
				const recent = idsOf(history.filter((call) => Date.parse(call.created_at) >= since));
				expect(recent.length).toBeGreaterThan(60);
				expect(recent.length).toBeLessThan(500);
				expect([...trigger.emittedIds].sort()).toEqual([...recent].sort());
				expect(trigger.executions.every((execution) => execution.items.length <= 50)).toBe(true);
			},
			HEAVY_MS,
		);
	});

	describe('calls placed several a second (the live service loses them at its pages\u2019 seams)', () => {
		test('All History over 250 calls placed 30 a second, 100 per poll: every call once, across polls and a restart', async () => {
			const history = await seededHistory(250, 30);
			const trigger = await start({ options: { startFrom: 'allHistory', maxCallsPerPoll: 100 } });

			await trigger.activate();
			if (profile === 'live') expect(trigger.savedState?.backfill?.seen?.length).toBeGreaterThan(0);
			await trigger.restart();
			await trigger.poll();

			expect(trigger.executions.map((execution) => idsOf(execution.items))).toEqual([
				history.slice(150),
				history.slice(50, 150),
				history.slice(0, 50),
			]);
			expect(trigger.savedState?.backfill).toBeUndefined();
		});

		test('a batch that stops in the middle of a page goes on after the last call taken, seam included', async () => {
			const history = await seededHistory(250, 30);
			const trigger = await start({ options: { startFrom: 'allHistory', maxCallsPerPoll: 70 } });

			await trigger.activate();
			for (let poll = 0; poll < 4; poll++) await trigger.poll();

			expect(trigger.emittedIds).toHaveLength(250);
			expect([...trigger.emittedIds].sort()).toEqual([...history].sort());
			expect(trigger.executions.map((execution) => execution.items.length)).toEqual([
				70, 70, 70, 40,
			]);
		});

		test('the saved cursor refused (expired): paged again from the top, none lost or twice', async () => {
			const history = await seededHistory(250, 30);
			const trigger = await throughProxy({
				options: { startFrom: 'allHistory', maxCallsPerPoll: 100 },
			});
			await trigger.activate();
			expiredOnce = new Set([trigger.savedState?.backfill?.cursor as string]);

			for (let poll = 0; poll < 3; poll++) await trigger.poll();
			expect(listPages).toBeGreaterThan(3);
			expect(expiredOnce.size).toBe(0);

			expect(trigger.emittedIds).toHaveLength(250);
			expect([...trigger.emittedIds].sort()).toEqual([...history].sort());
			expect(trigger.pollErrors).toEqual([]);
		});

		test('a cursor refused for good, found again as the next page: the poll stops with an error instead of looping', async () => {
			await seededHistory(250, 30);
			const trigger = await throughProxy({
				options: { startFrom: 'allHistory', maxCallsPerPoll: 100 },
			});
			await trigger.activate();
			refusedCursors = new Set([trigger.savedState?.backfill?.cursor as string]);
			listPages = 0;

			await trigger.poll();

			expect(trigger.pollErrors.map((error) => error.message)).toEqual([
				expect.stringContaining('repeated a pagination cursor for GET /calls'),
			]);
			// The new calls' page; refused, paged from the top to the last calls taken; the same again: no more.
			expect(listPages).toBe(5);
			expect(trigger.emittedIds).toHaveLength(100);
		});

		test('a backfill saved by a version before the seam (the service\u2019s own cursor, no ids of its second) goes on without a loss', async () => {
			const history = await seededHistory(250, 30);
			const trigger = await start({ options: { startFrom: 'allHistory', maxCallsPerPoll: 100 } });
			await trigger.activate();
			const saved = trigger.savedNodeData as any;
			const { backfill } = saved.callHistory;
			const lastTaken = (await everyCall(sandbox, profile)).find(
				(call) => textId(call.id) === backfill.last.at(-1),
			);
			// The live service's cursor of that page: its last call's second.
			if (profile === 'live') backfill.cursor = `${lastTaken.created_at.slice(0, 19)}Z`;
			delete backfill.seen;

			await trigger.crashAndRestart(saved);
			await trigger.poll();

			expect(trigger.emittedIds).toHaveLength(250);
			expect([...trigger.emittedIds].sort()).toEqual([...history].sort());
		});
	});
});
