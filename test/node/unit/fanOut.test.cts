/**
 * The fan-out and its adaptive limit, as pure units (a stub context with a cancel signal). The engine
 * suites prove the same over real HTTP against the sandbox.
 */
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { AdaptiveLimit } from '../../../nodes/shared/transport/adaptiveLimit';
import { fanOut } from '../../../nodes/shared/transport/fanOut';
import type { RequestObserver, VoiceAgentContext } from '../../../nodes/shared/transport/types';

const node: INode = {
	id: 'n1',
	name: 'Voice Agent',
	type: 'n8n-nodes-voice-agent.voiceAgent',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function stubContext(signal?: AbortSignal): VoiceAgentContext {
	return {
		getNode: () => node,
		getExecutionCancelSignal: () => signal,
	} as unknown as VoiceAgentContext;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const apiError = (httpCode: string) =>
	new NodeApiError(node, { httpCode } as JsonObject, { message: `failed ${httpCode}`, httpCode });

/** A task that records how many of its calls run at once, and reports a 200 after `ms`. */
function tracked(
	work: (item: number, observer: RequestObserver) => Promise<unknown> = async () => {},
) {
	const stats = { inFlight: 0, max: 0, calls: [] as number[] };
	const task = async (item: number, observer: RequestObserver) => {
		stats.calls.push(item);
		stats.inFlight++;
		stats.max = Math.max(stats.max, stats.inFlight);
		try {
			return await work(item, observer);
		} finally {
			stats.inFlight--;
		}
	};
	return { task, stats };
}

const items = (n: number) => Array.from({ length: n }, (_, index) => index);

describe('fanOut', () => {
	test('keeps the order of the items although later ones finish first', async () => {
		const { task } = tracked(async (item, observer) => {
			await pause(((item * 7) % 11) * 2);
			observer.onAttempt({ status: 200, latencyMs: 5 });
			return `r${item}`;
		});
		const { results, failures } = await fanOut(stubContext(), items(40), task, {
			maxConcurrency: 6,
		});
		expect(results).toEqual(items(40).map((n) => `r${n}`));
		expect(failures).toEqual([]);
	});

	test.each([1, 3, 8])(
		'never more than the maximum (%i) in flight, and reaches it',
		async (max) => {
			const { task, stats } = tracked(async (_item, observer) => {
				await pause(5);
				observer.onAttempt({ status: 200, latencyMs: 5 });
			});
			await fanOut(stubContext(), items(60), task, { maxConcurrency: max });
			expect(stats.max).toBe(max);
			expect(stats.calls.sort((a, b) => a - b)).toEqual(items(60));
		},
	);

	test('one failure never discards the others: it is returned per item', async () => {
		const { task } = tracked(async (item) => {
			if (item === 3) throw apiError('404');
			return item;
		});
		const { results, failures } = await fanOut(stubContext(), items(10), task, {
			maxConcurrency: 4,
		});
		expect(results.filter((result) => result !== undefined)).toHaveLength(9);
		expect(failures.map((failure) => [failure.index, failure.error.message])).toEqual([
			[3, 'failed 404'],
		]);
	});

	test('transient failures get a later pass, and what then works is kept', async () => {
		const attempts = new Map<number, number>();
		const { task } = tracked(async (item) => {
			const n = (attempts.get(item) ?? 0) + 1;
			attempts.set(item, n);
			if (item % 5 === 0 && n === 1) throw apiError('500');
			return item;
		});
		const { results, failures } = await fanOut(stubContext(), items(20), task, {
			maxConcurrency: 4,
			laterPassDelayMs: 10,
		});
		expect(failures).toEqual([]);
		expect(results).toEqual(items(20));
		expect([...attempts.entries()].filter(([, n]) => n === 2).map(([item]) => item)).toEqual([
			0, 5, 10, 15,
		]);
	});

	test('a final failure gets no later pass', async () => {
		let calls = 0;
		await fanOut(
			stubContext(),
			[1],
			async () => {
				calls++;
				throw apiError('404');
			},
			{ maxConcurrency: 2, laterPassDelayMs: 10 },
		);
		expect(calls).toBe(1);
	});

	test('a rejected API key stops everything at once', async () => {
		const { task, stats } = tracked(async () => {
			await pause(5);
			throw apiError('401');
		});
		await expect(fanOut(stubContext(), items(100), task, { maxConcurrency: 2 })).rejects.toThrow(
			'failed 401',
		);
		expect(stats.calls.length).toBeLessThanOrEqual(2);
		expect(stats.inFlight).toBe(0);
	});

	test('a cancelled execution starts nothing more and throws', async () => {
		const controller = new AbortController();
		const { task, stats } = tracked(async (item) => {
			await pause(5);
			if (item === 2) controller.abort();
		});
		await expect(
			fanOut(stubContext(controller.signal), items(50), task, { maxConcurrency: 2 }),
		).rejects.toThrow('The execution was cancelled');
		expect(stats.calls.length).toBeLessThanOrEqual(4);
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

describe('AdaptiveLimit', () => {
	const ok = (limit: AdaptiveLimit, times: number, latencyMs = 20) => {
		for (let n = 0; n < times; n++) limit.onAttempt({ status: 200, latencyMs });
	};

	test('grows while answers are fast and successful, up to its maximum', () => {
		const limit = new AdaptiveLimit(20);
		expect(limit.limit).toBe(4);
		ok(limit, 8);
		expect(limit.limit).toBe(12);
		ok(limit, 100);
		expect(limit.limit).toBe(20);
	});

	test('halves on a 429, once per burst, then grows by one per round', () => {
		const limit = new AdaptiveLimit(32, 16);
		limit.onAttempt({ status: 429, latencyMs: 5 });
		limit.onAttempt({ status: 429, latencyMs: 5 });
		limit.onAttempt({ status: 429, latencyMs: 5 });
		expect(limit.limit).toBe(8);
		ok(limit, 8);
		expect(limit.limit).toBe(9);
		ok(limit, 9);
		expect(limit.limit).toBe(10);
	});

	test('one less on a server error or a network failure: random failures do not collapse it', () => {
		const limit = new AdaptiveLimit(20, 16);
		limit.onAttempt({ status: 503, latencyMs: 5 });
		expect(limit.limit).toBe(15);
		ok(limit, 40);
		const before = limit.limit;
		limit.onAttempt({ latencyMs: 5 });
		expect(limit.limit).toBe(before - 1);
	});

	test('one failure in seven (a service failing a share of requests) leaves it at half its maximum or more', () => {
		const limit = new AdaptiveLimit(20);
		for (let n = 0; n < 700; n++) {
			if (n % 7 === 6) limit.onAttempt({ status: 500, latencyMs: 5 });
			else limit.onAttempt({ status: 200, latencyMs: 5 });
		}
		expect(limit.limit).toBeGreaterThanOrEqual(8);
	});

	test('a service that keeps failing brings it down step by step', () => {
		const limit = new AdaptiveLimit(20, 20);
		for (let n = 0; n < 500; n++) limit.onAttempt({ status: 500, latencyMs: 5 });
		expect(limit.limit).toBe(1);
	});

	test('shrinks when latency rises well above the fastest seen', () => {
		const limit = new AdaptiveLimit(20, 16);
		ok(limit, 5, 20);
		for (let n = 0; n < 30 && limit.limit >= 16; n++)
			limit.onAttempt({ status: 200, latencyMs: 900 });
		expect(limit.limit).toBeLessThan(16);
	});

	test('never below 1', () => {
		const limit = new AdaptiveLimit(4, 1);
		for (let n = 0; n < 20; n++) limit.onAttempt({ status: 429, latencyMs: 5 });
		expect(limit.limit).toBe(1);
	});
});
