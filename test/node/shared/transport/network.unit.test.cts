/** Reading the network failure out of what the HTTP helper threw. */
import {
	describeNetworkFailure,
	networkErrorCode,
} from '../../../../nodes/shared/transport/network';

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

	test('TLS failures keep their codes', () => {
		const tls = Object.assign(new Error('self-signed certificate'), {
			code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
		});
		expect(networkErrorCode(tls)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
		expect(networkErrorCode({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })).toBe(
			'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
		);
		expect(describeNetworkFailure('CERT_HAS_EXPIRED', 30_000)).toMatch(
			/^the TLS \(HTTPS\) connection failed/,
		);
	});

	test('a known code only named in the message', () => {
		expect(networkErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:4010'))).toBe('ECONNREFUSED');
		expect(networkErrorCode(new Error('getaddrinfo ENOTFOUND api.example.invalid'))).toBe(
			'ENOTFOUND',
		);
	});

	test("axios' own timeout wording is a timeout", () => {
		expect(networkErrorCode(new Error('timeout of 30000ms exceeded'))).toBe('ECONNABORTED');
		expect(describeNetworkFailure('ECONNABORTED', 30_000)).toBe(
			'the service did not answer within 30 seconds',
		);
	});

	test('upper-case words and "timeout" elsewhere in a message are no network code', () => {
		expect(networkErrorCode(new Error('Request failed: ERROR in ENGINE'))).toBeUndefined();
		expect(networkErrorCode(new Error('EVERYTHING went wrong'))).toBeUndefined();
		expect(networkErrorCode(new Error('the timeout setting is invalid'))).toBeUndefined();
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
