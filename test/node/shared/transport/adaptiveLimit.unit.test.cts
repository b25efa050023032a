/**
 * The fan-out's adaptive limit, as a pure unit: how many requests it lets run at once as answers come.
 * The engine suites prove the same over real HTTP against the sandbox.
 */
import { AdaptiveLimit } from '../../../../nodes/shared/transport/adaptiveLimit';

describe('AdaptiveLimit', () => {
	const succeed = (limit: AdaptiveLimit, times: number, latencyMs = 20) => {
		for (let n = 0; n < times; n++) limit.onAttempt({ status: 200, latencyMs });
	};

	test('grows while answers are fast and successful, up to its maximum', () => {
		const limit = new AdaptiveLimit(20);
		expect(limit.limit).toBe(4);
		succeed(limit, 8);
		expect(limit.limit).toBe(12);
		succeed(limit, 100);
		expect(limit.limit).toBe(20);
	});

	test('halves on a 429, once per burst, then grows by one per round', () => {
		const limit = new AdaptiveLimit(32, 16);
		limit.onAttempt({ status: 429, latencyMs: 5 });
		limit.onAttempt({ status: 429, latencyMs: 5 });
		limit.onAttempt({ status: 429, latencyMs: 5 });
		expect(limit.limit).toBe(8);
		succeed(limit, 8);
		expect(limit.limit).toBe(9);
		succeed(limit, 9);
		expect(limit.limit).toBe(10);
	});

	test('one less on a server error or a network failure: random failures do not collapse it', () => {
		const limit = new AdaptiveLimit(20, 16);
		limit.onAttempt({ status: 503, latencyMs: 5 });
		expect(limit.limit).toBe(15);
		succeed(limit, 40);
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

	test('lowers by a quarter when latency rises well above the fastest seen (requests queueing)', () => {
		const limit = new AdaptiveLimit(20, 16);
		succeed(limit, 5, 20);
		const before = limit.limit;
		for (let n = 0; n < 30 && limit.limit >= before; n++)
			limit.onAttempt({ status: 200, latencyMs: 120 });
		expect(limit.limit).toBe(Math.floor(before * 0.75));
	});

	test('a slower but steady service is no reason to shrink', () => {
		const limit = new AdaptiveLimit(20, 4);
		succeed(limit, 100, 300);
		expect(limit.limit).toBe(20);
	});

	test('a 429 pauses new attempts for its Retry-After', () => {
		let now = 1_000;
		const limit = new AdaptiveLimit(20, 8, () => now);
		expect(limit.pauseMs).toBe(0);
		limit.onAttempt({ status: 429, latencyMs: 5, retryAfterMs: 2_000 });
		expect(limit.pauseMs).toBe(2_000);
		now += 1_500;
		expect(limit.pauseMs).toBe(500);
		now += 600;
		expect(limit.pauseMs).toBe(0);
		limit.onAttempt({ status: 503, latencyMs: 5 });
		expect(limit.pauseMs).toBe(0);
	});

	test('never below 1', () => {
		const limit = new AdaptiveLimit(4, 1);
		for (let n = 0; n < 20; n++) limit.onAttempt({ status: 429, latencyMs: 5 });
		expect(limit.limit).toBe(1);
	});
});
