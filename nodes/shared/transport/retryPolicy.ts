/**
 * What to do after one attempt of a request: a pure function of the attempt's outcome, whether the
 * request may be repeated, what has been spent so far, and the budget of the place the request runs in.
 * The request loop only follows its decisions.
 */

/** Where a request runs decides how long it may take: a webhook answer cannot wait like a batch job. */
export type RequestPurpose = 'batch' | 'poll' | 'activation' | 'webhook' | 'editor';

interface RetryBudget {
	/** Attempts for server errors and network failures, the first one included. */
	maxAttempts: number;
	/** How many times a 429 is waited out. */
	maxRateLimitWaits: number;
	/** The longest single wait a Retry-After may ask for; longer fails at once, saying when to retry. */
	maxRetryAfterMs: number;
	/** All waits of one request together. */
	maxTotalWaitMs: number;
	/** Backoff doubles from this, with jitter, up to `backoffCapMs`. */
	backoffBaseMs: number;
	backoffCapMs: number;
	/** Timeout of one attempt. */
	timeoutMs: number;
}

/**
 * Batch and poll ride out an outage of several seconds (about 9 s of backoff over 6 attempts).
 * A webhook answer must come well inside the sender's delivery timeout, or the sender delivers the
 * event again; the editor's list search and an activation should fail fast and say why.
 */
export const RETRY_BUDGETS: Readonly<Record<RequestPurpose, RetryBudget>> = Object.freeze({
	batch: {
		maxAttempts: 6,
		maxRateLimitWaits: 10,
		maxRetryAfterMs: 60_000,
		maxTotalWaitMs: 180_000,
		backoffBaseMs: 300,
		backoffCapMs: 5_000,
		timeoutMs: 30_000,
	},
	poll: {
		maxAttempts: 6,
		maxRateLimitWaits: 10,
		maxRetryAfterMs: 60_000,
		maxTotalWaitMs: 120_000,
		backoffBaseMs: 300,
		backoffCapMs: 5_000,
		timeoutMs: 30_000,
	},
	activation: {
		maxAttempts: 3,
		maxRateLimitWaits: 2,
		maxRetryAfterMs: 10_000,
		maxTotalWaitMs: 20_000,
		backoffBaseMs: 300,
		backoffCapMs: 2_000,
		timeoutMs: 15_000,
	},
	// At most 3 attempts (2 for failures, 1 after a 429) of 2 s and 1 s of waits: 7 s in the worst case.
	webhook: {
		maxAttempts: 2,
		maxRateLimitWaits: 1,
		maxRetryAfterMs: 1_000,
		maxTotalWaitMs: 1_000,
		backoffBaseMs: 200,
		backoffCapMs: 1_000,
		timeoutMs: 2_000,
	},
	editor: {
		maxAttempts: 2,
		maxRateLimitWaits: 1,
		maxRetryAfterMs: 2_000,
		maxTotalWaitMs: 3_000,
		backoffBaseMs: 200,
		backoffCapMs: 1_000,
		timeoutMs: 10_000,
	},
});

/** What one attempt came to. */
export type AttemptOutcome =
	| { kind: 'answer'; status: number; retryAfterMs?: number }
	| { kind: 'network'; code?: string };

/** What the request has spent so far. */
export interface RetrySpent {
	/** Server errors and network failures so far. */
	failures: number;
	rateLimitWaits: number;
	waitedMs: number;
}

export type StopReason =
	/** A 2xx answer. */
	| 'success'
	/** A 4xx other than 429: repeating it gives the same answer. */
	| 'final'
	/** The service may have acted, and the request is not idempotent. */
	| 'may-have-acted'
	| 'attempts-spent'
	| 'retry-after-too-long'
	| 'wait-budget-spent';

type RetryDecision = { retry: true; waitMs: number } | { retry: false; reason: StopReason };

/**
 * Network failures that can only happen before the request reaches the service (no connection was
 * made): repeating them cannot act twice. EHOSTUNREACH and ENETUNREACH are not among them: an ICMP
 * error can end a connection after the request went out, so their outcome is unknown.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Exponential backoff with jitter in its upper half, so parallel retries spread out. */
export function backoffDelayMs(
	attempt: number,
	budget: Pick<RetryBudget, 'backoffBaseMs' | 'backoffCapMs'> = RETRY_BUDGETS.batch,
	random: () => number = Math.random,
): number {
	const ceiling = Math.min(budget.backoffCapMs, budget.backoffBaseMs * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function decideRetry(
	outcome: AttemptOutcome,
	idempotent: boolean,
	spent: RetrySpent,
	budget: RetryBudget,
	random: () => number = Math.random,
): RetryDecision {
	if (outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300) {
		return { retry: false, reason: 'success' };
	}
	if (outcome.kind === 'answer' && outcome.status === 429) {
		// The service did not act: waiting it out is safe for every request.
		const waitMs = outcome.retryAfterMs ?? backoffDelayMs(spent.rateLimitWaits, budget, random);
		if (waitMs > budget.maxRetryAfterMs) return { retry: false, reason: 'retry-after-too-long' };
		if (spent.rateLimitWaits >= budget.maxRateLimitWaits) {
			return { retry: false, reason: 'attempts-spent' };
		}
		return withinWaitBudget(waitMs, spent, budget);
	}
	const serverError = outcome.kind === 'answer' && outcome.status >= 500;
	if (outcome.kind === 'answer' && !serverError) return { retry: false, reason: 'final' };
	const notSent =
		outcome.kind === 'network' && outcome.code !== undefined && NOT_SENT_CODES.has(outcome.code);
	if (!idempotent && !notSent) return { retry: false, reason: 'may-have-acted' };
	if (spent.failures + 1 >= budget.maxAttempts) return { retry: false, reason: 'attempts-spent' };
	return withinWaitBudget(backoffDelayMs(spent.failures, budget, random), spent, budget);
}

function withinWaitBudget(waitMs: number, spent: RetrySpent, budget: RetryBudget): RetryDecision {
	if (spent.waitedMs + waitMs > budget.maxTotalWaitMs) {
		return { retry: false, reason: 'wait-budget-spent' };
	}
	return { retry: true, waitMs };
}

/** Milliseconds to wait from a Retry-After header (seconds or HTTP date); undefined when absent or unreadable. */
export function parseRetryAfterMs(header: unknown, now: number = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text)) * 1000;
	// An HTTP date names a weekday and a month; without letters, Date.parse would read "-1" or "1.5" as a date.
	if (!/[a-z]/i.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, Math.ceil((date - now) / 1000)) * 1000;
}
