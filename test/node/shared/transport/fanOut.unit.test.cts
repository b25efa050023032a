/**
 * The fan-out, as a pure unit (a stub context with a cancel signal). The engine suites prove the same
 * over real HTTP against the sandbox.
 */
import { serviceAnswerError } from '../../../../nodes/shared/errors';
import { fanOut } from '../../../../nodes/shared/transport/fanOut';
import type {
	AttemptReport,
	RequestObserver,
	VoiceAgentContext,
} from '../../../../nodes/shared/transport/types';
import { stubNode } from '../../../support/stubNode.cts';

const node = stubNode();

function stubContext(signal?: AbortSignal): VoiceAgentContext {
	return {
		getNode: () => node,
		getExecutionCancelSignal: () => signal,
	} as unknown as VoiceAgentContext;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The service's error answer, transient as the transport states it: a 429 or a server error. */
const apiError = (httpCode: string) =>
	serviceAnswerError(
		node,
		Number(httpCode),
		{ message: `failed ${httpCode}` },
		{
			transient: httpCode === '429' || Number(httpCode) >= 500,
			outcomeUnknown: false,
			notFound: httpCode === '404',
		},
	);

/**
 * A task that sends one request the way the request loop does: it asks the observer for a slot before
 * each attempt, reports each attempt, and waits out a 429's Retry-After before the next. It records how
 * many attempts are on the wire at once and when each starts. `answer` says how an attempt goes.
 */
function tracked(
	answer: (item: number, attempt: number) => Promise<AttemptReport | Error> = async () => ({
		status: 200,
		latencyMs: 5,
	}),
) {
	const stats = { onWire: 0, max: 0, calls: [] as number[], starts: [] as Array<[number, number]> };
	const task = async (item: number, observer: RequestObserver) => {
		stats.calls.push(item);
		for (let attempt = 1; ; attempt++) {
			await observer.beforeAttempt?.();
			stats.starts.push([item, Date.now()]);
			stats.onWire++;
			stats.max = Math.max(stats.max, stats.onWire);
			const outcome = await answer(item, attempt).finally(() => stats.onWire--);
			if (outcome instanceof Error) {
				observer.onAttempt({ status: Number(outcome.message.slice(-3)), latencyMs: 5 });
				throw outcome;
			}
			observer.onAttempt(outcome);
			if (outcome.status === 429) {
				await pause(outcome.retryAfterMs ?? 0);
				continue;
			}
			return `r${item}`;
		}
	};
	return { task, stats };
}

const items = (n: number) => Array.from({ length: n }, (_, index) => index);

const ok = (latencyMs = 5): AttemptReport => ({ status: 200, latencyMs });

describe('fanOut', () => {
	test('keeps the order of the items although later ones finish first', async () => {
		const { task } = tracked(async (item) => {
			await pause(((item * 7) % 11) * 2);
			return ok();
		});
		const { results, failures } = await fanOut(stubContext(), items(40), task, {
			maxConcurrency: 6,
		});
		expect(results).toEqual(items(40).map((n) => `r${n}`));
		expect(failures).toEqual([]);
	});

	test.each([1, 3, 8])(
		'never more than the maximum (%i) requests on the wire, and reaches it',
		async (max) => {
			const { task, stats } = tracked(async () => {
				await pause(5);
				return ok();
			});
			await fanOut(stubContext(), items(60), task, { maxConcurrency: max });
			expect(stats.max).toBe(max);
			expect(stats.calls.sort((a, b) => a - b)).toEqual(items(60));
		},
	);

	test('one failure never discards the others: it is returned per item', async () => {
		const { task } = tracked(async (item) => (item === 3 ? apiError('404') : ok()));
		const { results, failures } = await fanOut(stubContext(), items(10), task, {
			maxConcurrency: 4,
		});
		expect(results.filter((result) => result !== undefined)).toHaveLength(9);
		expect(failures.map((failure) => [failure.index, failure.error.message])).toEqual([
			[3, 'failed 404'],
		]);
	});

	test('transient failures get a later pass, and what then works is kept', async () => {
		const passes = new Map<number, number>();
		const { task } = tracked(async (item) => {
			const n = (passes.get(item) ?? 0) + 1;
			passes.set(item, n);
			return item % 5 === 0 && n === 1 ? apiError('500') : ok();
		});
		const { results, failures } = await fanOut(stubContext(), items(20), task, {
			maxConcurrency: 4,
			laterPassDelayMs: 10,
		});
		expect(failures).toEqual([]);
		expect(results).toEqual(items(20).map((n) => `r${n}`));
		expect([...passes.entries()].filter(([, n]) => n === 2).map(([item]) => item)).toEqual([
			0, 5, 10, 15,
		]);
	});

	test('a final failure gets no later pass', async () => {
		const { task, stats } = tracked(async () => apiError('404'));
		await fanOut(stubContext(), [1], task, { maxConcurrency: 2, laterPassDelayMs: 10 });
		expect(stats.calls).toEqual([1]);
	});

	test('a request waiting out a Retry-After holds no slot, and nothing starts before it is over', async () => {
		// Item 0 is refused once with Retry-After: 80 ms; everything else succeeds at once.
		const { task, stats } = tracked(async (item, attempt) => {
			await pause(5);
			return item === 0 && attempt === 1 ? { status: 429, latencyMs: 5, retryAfterMs: 80 } : ok();
		});
		const started = Date.now();
		const { results, failures } = await fanOut(stubContext(), items(12), task, {
			maxConcurrency: 1,
		});
		expect(failures).toEqual([]);
		expect(results).toEqual(items(12).map((n) => `r${n}`));
		// One slot: the refused attempt gave it back, the pause held every start, then the retry went first.
		const [first, retry, ...rest] = stats.starts;
		expect(first[0]).toBe(0);
		expect(retry[0]).toBe(0);
		expect(retry[1] - started).toBeGreaterThanOrEqual(80);
		expect(rest.map(([item]) => item)).toEqual(items(12).slice(1));
		expect(stats.max).toBe(1);
	});

	test('every request refused at once: all wait, then all finish (no slot is lost)', async () => {
		const { task, stats } = tracked(async (_item, attempt) => {
			await pause(2);
			return attempt === 1 ? { status: 429, latencyMs: 2, retryAfterMs: 20 } : ok(2);
		});
		const { results, failures } = await fanOut(stubContext(), items(9), task, {
			maxConcurrency: 3,
			initialConcurrency: 3,
		});
		expect(failures).toEqual([]);
		expect(results).toEqual(items(9).map((n) => `r${n}`));
		expect(stats.max).toBeLessThanOrEqual(3);
	});

	test('a rejected API key stops everything at once', async () => {
		const { task, stats } = tracked(async () => {
			await pause(5);
			return apiError('401');
		});
		await expect(fanOut(stubContext(), items(100), task, { maxConcurrency: 2 })).rejects.toThrow(
			'failed 401',
		);
		expect(stats.calls.length).toBeLessThanOrEqual(2);
		expect(stats.onWire).toBe(0);
	});

	test('a cancelled execution starts nothing more and throws', async () => {
		const controller = new AbortController();
		const { task, stats } = tracked(async (item) => {
			await pause(5);
			if (item === 2) controller.abort();
			return ok();
		});
		await expect(
			fanOut(stubContext(controller.signal), items(50), task, { maxConcurrency: 2 }),
		).rejects.toThrow('The execution was cancelled');
		expect(stats.calls.length).toBeLessThanOrEqual(4);
	});

	test('cancelled while requests wait for a slot: they are released with the cancellation', async () => {
		const controller = new AbortController();
		const { task, stats } = tracked(async (item, attempt) => {
			await pause(5);
			if (item === 1 && attempt === 1) setTimeout(() => controller.abort(), 30);
			return attempt === 1 ? { status: 429, latencyMs: 5, retryAfterMs: 10 } : ok();
		});
		await expect(
			fanOut(stubContext(controller.signal), items(40), task, {
				maxConcurrency: 2,
				initialConcurrency: 2,
			}),
		).rejects.toThrow('The execution was cancelled');
		expect(stats.calls.length).toBeLessThan(40);
	});

	test('no items: no calls', async () => {
		const { task, stats } = tracked();
		expect(await fanOut(stubContext(), [], task, { maxConcurrency: 5 })).toEqual({
			results: [],
			failures: [],
		});
		expect(stats.calls).toEqual([]);
	});
});
