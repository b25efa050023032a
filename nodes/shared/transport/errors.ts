/** The words of the transport's errors; each is made by its kind's factory in `../errors`. */
import type { NodeApiError } from 'n8n-workflow';

import { describeLocation } from '../baseUrl';
import { decodeErrorAnswer } from '../decode/errorBody';
import { BASE_URL_HINT } from '../credential';
import { noAnswerError, serviceAnswerError } from '../errors';
import { withFieldNames } from '../fields';
import { describeNetworkFailure } from './network';
import type { RetrySpent, StopReason } from './retryPolicy';
import type { ApiRequest, VoiceAgentContext } from './types';

/** What a 401 of the service means, for the nodes and the credential's connection test. */
export const API_KEY_REJECTED =
	'The Voice Agent API rejected the API key (401 Unauthorized): check the API key of the Voice Agent API credential';

function retryStory(request: ApiRequest, spent: RetrySpent, reason: StopReason): string {
	const route = `${request.method} ${request.path}`;
	if (reason === 'may-have-acted') {
		return `${route} was not repeated, since the service may have acted on it.`;
	}
	const attempts = spent.failures + spent.rateLimitWaits + 1;
	return attempts > 1 ? `${route} was tried ${attempts} times.` : `${route} was tried once.`;
}

/**
 * The service's answer as an error the user can act on. The message says what happened (n8n's
 * toasts show only the message); the description adds what the node tried, never a repeat.
 */
export function apiError(
	context: VoiceAgentContext,
	request: ApiRequest,
	status: number,
	body: unknown,
	spent: RetrySpent,
	reason: StopReason,
	retryAfterMs?: number,
): NodeApiError {
	const { message: said, fromService } = decodeErrorAnswer(body);
	const route = `${request.method} ${request.path}`;
	let message: string;
	let description: string | undefined;
	if (status === 401) {
		message = API_KEY_REJECTED;
	} else if (status === 404 && !fromService) {
		// The service answers every error with its own text: a 404 without it (a missing route, a proxy's
		// page, nothing) comes from another server.
		message = `${route} was not found: the credential's Base URL does not answer like the Voice Agent API; ${BASE_URL_HINT}`;
	} else if (status === 404) {
		message = `${request.notFound ?? `The resource of ${route}`} was not found`;
	} else if (status === 429) {
		message =
			reason === 'retry-after-too-long' && retryAfterMs !== undefined
				? `The Voice Agent API is rate limiting this API key; retry after ${Math.ceil(retryAfterMs / 1000)} seconds`
				: 'The Voice Agent API is rate limiting this API key; try again later';
		description = retryStory(request, spent, reason);
	} else if (status >= 500) {
		message = `The Voice Agent service failed to process ${route} (${status})${said ? `: ${said}` : ''}`;
		description = retryStory(request, spent, reason);
	} else {
		message = said
			? `The Voice Agent API rejected the request: ${withFieldNames(said, request.fields ?? {})}`
			: `${route} failed (${status})`;
	}
	return serviceAnswerError(
		context.getNode(),
		status,
		{ message, description },
		{
			transient: status === 429 || status >= 500,
			outcomeUnknown: reason === 'may-have-acted',
			// Another server's 404 (a proxy, a wrong Base URL) says nothing about the resource.
			notFound: status === 404 && fromService,
		},
	);
}

/**
 * A redirect answer, which the node never follows: following it would send the API key wherever it
 * points. Says where it pointed (without its query, which may hold secrets) and that nothing went there.
 */
export function redirectError(
	context: VoiceAgentContext,
	request: ApiRequest,
	status: number,
	location: unknown,
	url: string,
): NodeApiError {
	const route = `${request.method} ${request.path}`;
	const message = `The Base URL answered ${route} with a redirect (${status}) to ${describeLocation(location, url)}: redirects are not followed, so the API key was not sent there; ${BASE_URL_HINT}`;
	// "See Other" answers a request the server carried out: for one that acts, the service may have acted.
	const outcomeUnknown = status === 303 && !request.idempotent;
	return serviceAnswerError(
		context.getNode(),
		status,
		{ message },
		{ transient: false, outcomeUnknown, notFound: false },
	);
}

export function networkError(
	context: VoiceAgentContext,
	request: ApiRequest,
	code: string | undefined,
	spent: RetrySpent,
	reason: StopReason,
	timeoutMs: number,
): NodeApiError {
	return noAnswerError(
		context.getNode(),
		{
			message: `Could not reach the Voice Agent API: ${describeNetworkFailure(code, timeoutMs)}`,
			description: retryStory(request, spent, reason),
		},
		{ outcomeUnknown: reason === 'may-have-acted', networkErrorCode: code ?? null },
	);
}
