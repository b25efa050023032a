/**
 * The transport's errors: what each states about a later attempt and about what the service may have
 * done, as the fan-out, the wait for a call's end and Create's look-up read it.
 */
import { isNotFound, isOutcomeUnknown, isTransient } from '../../../../nodes/shared/errors';
import { apiError, networkError, redirectError } from '../../../../nodes/shared/transport/errors';
import type { RetrySpent, StopReason } from '../../../../nodes/shared/transport/retryPolicy';
import type { ApiRequest, VoiceAgentContext } from '../../../../nodes/shared/transport/types';
import { stubNode } from '../../../support/stubNode.cts';

const node = stubNode();
const context = { getNode: () => node } as unknown as VoiceAgentContext;

const getCall: ApiRequest = { method: 'GET', path: '/call', idempotent: true };
const postCall: ApiRequest = { method: 'POST', path: '/call', idempotent: false };
const spentOnce: RetrySpent = { failures: 0, rateLimitWaits: 0, waitedMs: 0 };

const serviceAnswer = (status: number, request = getCall, reason: StopReason = 'final') =>
	apiError(context, request, status, { error: 'e', message: 'said' }, spentOnce, reason);

const classOf = (error: unknown) => [
	isTransient(error),
	isOutcomeUnknown(error),
	isNotFound(error),
];

test('rate limits and server errors are transient; other answers are final', () => {
	expect(classOf(serviceAnswer(429, getCall, 'attempts-spent'))).toEqual([true, false, false]);
	expect(classOf(serviceAnswer(502, getCall, 'attempts-spent'))).toEqual([true, false, false]);
	expect(classOf(serviceAnswer(400))).toEqual([false, false, false]);
	expect(classOf(serviceAnswer(401))).toEqual([false, false, false]);
});

test("the service's 404 says the resource does not exist; another server's 404 does not", () => {
	expect(classOf(serviceAnswer(404))).toEqual([false, false, true]);
	const foreign = apiError(context, getCall, 404, '<h1>Not Found</h1>', spentOnce, 'final');
	expect(classOf(foreign)).toEqual([false, false, false]);
});

test('a redirect is final: it is never followed', () => {
	const error = redirectError(context, getCall, 307, 'https://elsewhere.test/', 'https://x.test/');
	expect(error.httpCode).toBe('307');
	expect(classOf(error)).toEqual([false, false, false]);
});

test('a network failure is transient, unless the service may have acted', () => {
	const read = networkError(context, getCall, 'ECONNRESET', spentOnce, 'attempts-spent', 30_000);
	const placed = networkError(context, postCall, 'ECONNRESET', spentOnce, 'may-have-acted', 30_000);
	expect(read.httpCode).toBeNull();
	expect(classOf(read)).toEqual([true, false, false]);
	expect(classOf(placed)).toEqual([false, true, false]);
});

test('a server error to a call that may have been placed is never transient', () => {
	expect(classOf(serviceAnswer(500, postCall, 'may-have-acted'))).toEqual([false, true, false]);
});
