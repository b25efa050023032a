/** Reading what the HTTP helper threw when no answer came back. */

/**
 * The network failures the node tells apart. Only these are read from a message; a `code` property
 * is taken when it has the form of a system error code (E + capitals) or a TLS code.
 */
const KNOWN_CODES = [
	'ECONNREFUSED',
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EPIPE',
	'EPROTO',
] as const;

const TLS_CODE = /CERT|^UNABLE_TO_|^ERR_TLS|^ERR_SSL|^EPROTO$/;
const CODE_SHAPE = /^(E[A-Z][A-Z_]+|ERR_[A-Z_]+|[A-Z_]*CERT[A-Z_]*|UNABLE_TO_[A-Z_]+)$/;
const CODE_IN_MESSAGE = new RegExp(`\\b(${KNOWN_CODES.join('|')})\\b`);

/** The network error code (ECONNRESET, ETIMEDOUT, ...) of what the HTTP helper threw, if it has one. */
export function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		if (seen.has(current)) break;
		seen.add(current);
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && CODE_SHAPE.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	const message = error instanceof Error ? error.message : '';
	const named = CODE_IN_MESSAGE.exec(message);
	if (named) return named[1];
	// Axios words its own timeout this way, without a code in older versions.
	if (/^timeout of \d+ms exceeded$/.test(message)) return 'ECONNABORTED';
	return undefined;
}

function isTlsFailure(code: string | undefined): boolean {
	return code !== undefined && TLS_CODE.test(code);
}

export function describeNetworkFailure(code: string | undefined, timeoutMs: number): string {
	switch (code) {
		case 'ECONNREFUSED':
			return 'the service refused the connection (is the Base URL right and the service up?)';
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'the host name of the Base URL could not be resolved';
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return 'the host of the Base URL cannot be reached from here';
		case 'ECONNRESET':
		case 'EPIPE':
			return 'the connection was reset before the service answered';
		case 'ETIMEDOUT':
		case 'ESOCKETTIMEDOUT':
		case 'ECONNABORTED':
			return `the service did not answer within ${timeoutMs / 1000} seconds`;
		default:
			if (isTlsFailure(code)) {
				return `the TLS (HTTPS) connection failed (${code}): check that the Base URL's certificate is valid`;
			}
			return code ? `network error ${code}` : 'the request failed before the service answered';
	}
}
