/** When to repeat a request and how long to wait first, and what a network failure means. */

const BACKOFF_BASE_MS = 300;
const BACKOFF_CAP_MS = 5_000;

/** Network failures that happen before a request reaches the service: retrying them cannot act twice. */
export const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
]);

/** Exponential backoff with full jitter in its upper half, so parallel retries spread out. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Seconds to wait from a Retry-After header (seconds or HTTP date); undefined when absent or unreadable. */
export function parseRetryAfterSeconds(
	header: unknown,
	now: number = Date.now(),
): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
	// An HTTP date names a weekday and a month; without letters, Date.parse would read "-1" or "1.5" as a past date.
	if (!/[a-z]/i.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The network error code (ECONNRESET, ETIMEDOUT, ...) buried in what the HTTP helper threw. */
export function networkErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	const message = error instanceof Error ? error.message : '';
	const fromMessage = /\b(E[A-Z]{4,})\b/.exec(message);
	if (fromMessage) return fromMessage[1];
	if (/timeout/i.test(message)) return 'ETIMEDOUT';
	return undefined;
}

export function describeNetworkFailure(code: string | undefined, timeoutMs: number): string {
	switch (code) {
		case 'ECONNREFUSED':
			return 'the service refused the connection (is the Base URL right and the service up?)';
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'the Base URL host name could not be resolved';
		case 'ECONNRESET':
			return 'the connection was reset before the service answered';
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
			return `the service did not answer within ${timeoutMs / 1000} seconds`;
		default:
			return code ? `network error ${code}` : 'the request failed before the service answered';
	}
}
