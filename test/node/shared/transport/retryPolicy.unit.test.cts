/** The retry policy as a table: what happens after each kind of answer, for each place a request runs in. */
import {
	backoffDelayMs,
	decideRetry,
	parseRetryAfterMs,
	RETRY_BUDGETS,
	type AttemptOutcome,
	type RetrySpent,
} from '../../../../nodes/shared/transport/retryPolicy';

const fresh: RetrySpent = { failures: 0, rateLimitWaits: 0, waitedMs: 0 };
const batch = RETRY_BUDGETS.batch;
const upperJitter = () => 1;

const answer = (status: number, retryAfterMs?: number): AttemptOutcome => ({
	kind: 'answer',
	status,
	retryAfterMs,
});
const network = (code?: string): AttemptOutcome => ({ kind: 'network', code });

describe('decideRetry', () => {
	test.each<[string, AttemptOutcome, boolean, ReturnType<typeof decideRetry>]>([
		['200', answer(200), true, { retry: false, reason: 'success' }],
		['204 of a POST', answer(204), false, { retry: false, reason: 'success' }],
		['400', answer(400), true, { retry: false, reason: 'final' }],
		['401', answer(401), true, { retry: false, reason: 'final' }],
		['404', answer(404), true, { retry: false, reason: 'final' }],
		['500 of a read', answer(500), true, { retry: true, waitMs: 300 }],
		['503 of a read', answer(503), true, { retry: true, waitMs: 300 }],
		['500 of POST /call', answer(500), false, { retry: false, reason: 'may-have-acted' }],
		['a reset of a read', network('ECONNRESET'), true, { retry: true, waitMs: 300 }],
		[
			'a reset of POST /call',
			network('ECONNRESET'),
			false,
			{ retry: false, reason: 'may-have-acted' },
		],
		[
			'a timeout of POST /call',
			network('ECONNABORTED'),
			false,
			{ retry: false, reason: 'may-have-acted' },
		],
		[
			'an unknown failure of POST /call',
			network(undefined),
			false,
			{ retry: false, reason: 'may-have-acted' },
		],
		[
			'a refused connection of POST /call',
			network('ECONNREFUSED'),
			false,
			{ retry: true, waitMs: 300 },
		],
		['an unknown host for POST /call', network('ENOTFOUND'), false, { retry: true, waitMs: 300 }],
		// An ICMP "unreachable" can end a connection after the request went out.
		[
			'an unreachable host after POST /call',
			network('EHOSTUNREACH'),
			false,
			{ retry: false, reason: 'may-have-acted' },
		],
		[
			'an unreachable network after POST /call',
			network('ENETUNREACH'),
			false,
			{ retry: false, reason: 'may-have-acted' },
		],
		['an unreachable host for a read', network('EHOSTUNREACH'), true, { retry: true, waitMs: 300 }],
		[
			'an unreachable network for a read',
			network('ENETUNREACH'),
			true,
			{ retry: true, waitMs: 300 },
		],
		['a redirect (307)', answer(307), true, { retry: false, reason: 'final' }],
		['a redirect (302) of POST /call', answer(302), false, { retry: false, reason: 'final' }],
		[
			'429 with Retry-After of POST /call',
			answer(429, 2_000),
			false,
			{ retry: true, waitMs: 2_000 },
		],
		['429 without Retry-After', answer(429), true, { retry: true, waitMs: 300 }],
	])('batch, first attempt: %s', (_name, outcome, idempotent, expected) => {
		expect(decideRetry(outcome, idempotent, fresh, batch, upperJitter)).toEqual(expected);
	});

	test('server errors are retried until the attempts are spent', () => {
		const decisions = [0, 1, 2, 3, 4, 5].map((failures) =>
			decideRetry(answer(500), true, { ...fresh, failures }, batch, upperJitter),
		);
		expect(decisions).toEqual([
			{ retry: true, waitMs: 300 },
			{ retry: true, waitMs: 600 },
			{ retry: true, waitMs: 1200 },
			{ retry: true, waitMs: 2400 },
			{ retry: true, waitMs: 4800 },
			{ retry: false, reason: 'attempts-spent' },
		]);
		// About 9 seconds of backoff at most: a short outage is ridden out.
		expect(decisions.reduce((sum, d) => sum + (d.retry ? d.waitMs : 0), 0)).toBe(9_300);
	});

	test('a Retry-After longer than the budget allows fails at once', () => {
		expect(decideRetry(answer(429, 61_000), true, fresh, batch)).toEqual({
			retry: false,
			reason: 'retry-after-too-long',
		});
		expect(decideRetry(answer(429, 60_000), true, fresh, batch)).toEqual({
			retry: true,
			waitMs: 60_000,
		});
	});

	test('rate limits are waited out a bounded number of times, and within the total wait', () => {
		const spent = { ...fresh, rateLimitWaits: batch.maxRateLimitWaits };
		expect(decideRetry(answer(429, 1_000), true, spent, batch)).toEqual({
			retry: false,
			reason: 'attempts-spent',
		});
		const longWaited = { ...fresh, rateLimitWaits: 1, waitedMs: batch.maxTotalWaitMs - 500 };
		expect(decideRetry(answer(429, 1_000), true, longWaited, batch)).toEqual({
			retry: false,
			reason: 'wait-budget-spent',
		});
	});

	test('a webhook answer waits at most 1 second in all, and tries twice at most (three times after a 429)', () => {
		const webhook = RETRY_BUDGETS.webhook;
		expect(decideRetry(answer(429, 2_000), true, fresh, webhook)).toEqual({
			retry: false,
			reason: 'retry-after-too-long',
		});
		expect(decideRetry(answer(429, 1_000), true, fresh, webhook)).toEqual({
			retry: true,
			waitMs: 1_000,
		});
		expect(decideRetry(answer(500), true, fresh, webhook, upperJitter)).toEqual({
			retry: true,
			waitMs: 200,
		});
		expect(decideRetry(answer(500), true, { ...fresh, failures: 1 }, webhook)).toEqual({
			retry: false,
			reason: 'attempts-spent',
		});
		expect(
			decideRetry(answer(500), true, { ...fresh, rateLimitWaits: 1, waitedMs: 1_000 }, webhook),
		).toEqual({ retry: false, reason: 'wait-budget-spent' });
	});

	test("a webhook's detail read ends well inside the sender's 10 s delivery timeout, in the worst case", () => {
		const webhook = RETRY_BUDGETS.webhook;
		const attempts = webhook.maxAttempts + webhook.maxRateLimitWaits;
		expect(attempts * webhook.timeoutMs + webhook.maxTotalWaitMs).toBeLessThanOrEqual(7_000);
	});

	test('the editor and activation fail fast too', () => {
		for (const budget of [RETRY_BUDGETS.editor, RETRY_BUDGETS.activation]) {
			expect(decideRetry(answer(429, 30_000), true, fresh, budget).retry).toBe(false);
			expect(budget.maxAttempts).toBeLessThanOrEqual(3);
		}
	});
});

describe('backoffDelayMs', () => {
	test('doubles from the base per attempt, jittered within the upper half', () => {
		expect([0, 1, 2, 3].map((attempt) => backoffDelayMs(attempt, batch, () => 0))).toEqual([
			150, 300, 600, 1200,
		]);
		expect([0, 1, 2, 3].map((attempt) => backoffDelayMs(attempt, batch, () => 1))).toEqual([
			300, 600, 1200, 2400,
		]);
		expect(backoffDelayMs(1, batch, () => 0.5)).toBe(450);
	});

	test('is capped', () => {
		expect(backoffDelayMs(5, batch, () => 1)).toBe(5000);
		expect(backoffDelayMs(30, batch, () => 0)).toBe(2500);
		expect(backoffDelayMs(30, RETRY_BUDGETS.webhook, () => 1)).toBe(1000);
	});

	test('with real randomness it stays within [ceiling/2, ceiling]', () => {
		for (let attempt = 0; attempt < 8; attempt++) {
			const ceiling = Math.min(5000, 300 * 2 ** attempt);
			for (let n = 0; n < 50; n++) {
				const delay = backoffDelayMs(attempt);
				expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
				expect(delay).toBeLessThanOrEqual(ceiling);
			}
		}
	});
});

describe('parseRetryAfterMs', () => {
	const now = Date.parse('2026-03-01T12:00:00.000Z');

	test.each<[unknown, number]>([
		['5', 5_000],
		['0', 0],
		[' 7 ', 7_000],
		[12, 12_000],
		[['3', '9'], 3_000],
		['120', 120_000],
	])('delay-seconds %j is %d ms', (header, ms) => {
		expect(parseRetryAfterMs(header, now)).toBe(ms);
	});

	test('an HTTP date is the whole seconds until then, rounded up', () => {
		expect(parseRetryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
		expect(parseRetryAfterMs(new Date(now + 2_500).toUTCString(), now)).toBe(2_000);
		expect(parseRetryAfterMs(new Date(now + 2_000).toUTCString(), now - 400)).toBe(3_000);
	});

	test('an HTTP date in the past means no wait', () => {
		expect(parseRetryAfterMs('Sun, 01 Mar 2026 11:59:00 GMT', now)).toBe(0);
	});

	test('decimal seconds are rounded up, not read as a date', () => {
		// Date.parse("1.5") is a day in 2001: read as a date, this would mean "retry at once".
		expect(parseRetryAfterMs('1.5', now)).toBe(2_000);
		expect(parseRetryAfterMs('0.2', now)).toBe(1_000);
	});

	test.each<[unknown]>([
		[undefined],
		[null],
		[''],
		['soon'],
		['-1'],
		['2 seconds'],
		[{}],
		[[]],
		[true],
	])('%j is unreadable: undefined, so the caller backs off on its own', (header) => {
		expect(parseRetryAfterMs(header, now)).toBeUndefined();
	});
});
