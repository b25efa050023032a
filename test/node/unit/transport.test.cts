/** Pure helpers of the Voice Agent node's transport: Retry-After, backoff, network error codes. */
import {
	backoffDelayMs,
	networkErrorCode,
	parseRetryAfterSeconds,
} from '../../../nodes/VoiceAgent/transport';

describe('parseRetryAfterSeconds', () => {
	const now = Date.parse('2026-03-01T12:00:00.000Z');

	test.each<[unknown, number]>([
		['5', 5],
		['0', 0],
		[' 7 ', 7],
		[12, 12],
		[['3', '9'], 3],
		['120', 120],
	])('delay-seconds %j is %d seconds', (header, seconds) => {
		expect(parseRetryAfterSeconds(header, now)).toBe(seconds);
	});

	test('an HTTP date is the whole seconds until then, rounded up', () => {
		expect(parseRetryAfterSeconds('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30);
		expect(parseRetryAfterSeconds(new Date(now + 2_500).toUTCString(), now - 0)).toBe(2);
		expect(parseRetryAfterSeconds(new Date(now + 2_000).toUTCString(), now - 400)).toBe(3);
	});

	test('an HTTP date in the past means no wait', () => {
		expect(parseRetryAfterSeconds('Sun, 01 Mar 2026 11:59:00 GMT', now)).toBe(0);
	});

	test('decimal seconds are rounded up, not read as a date', () => {
		// Date.parse("1.5") is a day in 2001: read as a date, this would mean "retry at once".
		expect(parseRetryAfterSeconds('1.5', now)).toBe(2);
		expect(parseRetryAfterSeconds('0.2', now)).toBe(1);
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
		expect(parseRetryAfterSeconds(header, now)).toBeUndefined();
	});
});

describe('backoffDelayMs', () => {
	test('doubles from 300 ms per attempt, jittered within the upper half', () => {
		expect([0, 1, 2, 3].map((attempt) => backoffDelayMs(attempt, () => 0))).toEqual([
			150, 300, 600, 1200,
		]);
		expect([0, 1, 2, 3].map((attempt) => backoffDelayMs(attempt, () => 1))).toEqual([
			300, 600, 1200, 2400,
		]);
		expect(backoffDelayMs(1, () => 0.5)).toBe(450);
	});

	test('is capped at 5 seconds', () => {
		expect(backoffDelayMs(5, () => 1)).toBe(5000);
		expect(backoffDelayMs(30, () => 0)).toBe(2500);
		expect(backoffDelayMs(30, () => 1)).toBe(5000);
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

describe('networkErrorCode', () => {
	test('the code of the error itself', () => {
		expect(
			networkErrorCode(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
		).toBe('ECONNRESET');
	});

	test('a code buried in the cause chain', () => {
		const inner = Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' });
		const outer = new Error('Request failed', { cause: new Error('wrapped', { cause: inner }) });
		expect(networkErrorCode(outer)).toBe('ECONNREFUSED');
		expect(networkErrorCode({ cause: { code: 'EAI_AGAIN' } })).toBe('EAI_AGAIN');
	});

	test('a code only named in the message', () => {
		expect(networkErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:4010'))).toBe('ECONNREFUSED');
		expect(networkErrorCode(new Error('getaddrinfo ENOTFOUND api.example.invalid'))).toBe(
			'ENOTFOUND',
		);
	});

	test('a timeout without a code is ETIMEDOUT', () => {
		expect(networkErrorCode(new Error('timeout of 30000ms exceeded'))).toBe('ETIMEDOUT');
	});

	test('non-code values of `code` are skipped, and nothing found is undefined', () => {
		expect(networkErrorCode(Object.assign(new Error('boom'), { code: 500 }))).toBeUndefined();
		expect(networkErrorCode(Object.assign(new Error('boom'), { code: 'nope' }))).toBeUndefined();
		expect(networkErrorCode(new Error('something else'))).toBeUndefined();
		expect(networkErrorCode(undefined)).toBeUndefined();
		expect(networkErrorCode('ECONNRESET')).toBeUndefined();
	});

	test('a cause chain that loops does not hang', () => {
		const a: { cause?: unknown } = {};
		const b = { cause: a };
		a.cause = b;
		expect(networkErrorCode(a)).toBeUndefined();
	});
});
