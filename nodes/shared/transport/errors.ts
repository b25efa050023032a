import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { describeLocation } from '../baseUrl';
import { BASE_URL_HINT } from '../credential';
import { withFieldNames } from '../fields';
import { describeNetworkFailure } from './network';
import type { RetrySpent, StopReason } from './retryPolicy';
import type { ApiRequest, VoiceAgentContext } from './types';

/**
 * Marks a failure after which the service may or may not have acted. Only requests that are not
 * idempotent carry it, so their caller can check what happened before reporting an error.
 */
const OUTCOME_UNKNOWN = 'outcomeUnknown';

export function isOutcomeUnknown(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[OUTCOME_UNKNOWN] === true;
}

/** Whether an error is a 404 of the service (the resource does not exist). */
export function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

/** Whether a later attempt may succeed: server errors, rate limits and network failures. */
export function isTransient(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return error.httpCode === null || status === 429 || status >= 500;
}

/** What a 401 of the service means, for the nodes and the credential's connection test. */
export const API_KEY_REJECTED =
	'The Voice Agent API rejected the API key (401 Unauthorized): check the API key of the Voice Agent API credential';

/** Whether a body is the service's error body: `{ "error": ..., "message": ... }`. */
function isServiceError(body: unknown): boolean {
	const fields = body as IDataObject | null;
	return (
		typeof fields === 'object' &&
		fields !== null &&
		typeof fields.error === 'string' &&
		typeof fields.message === 'string'
	);
}

function serviceMessage(body: unknown): string | undefined {
	if (body && typeof body === 'object' && typeof (body as IDataObject).message === 'string') {
		const message = ((body as IDataObject).message as string).trim();
		return message === '' ? undefined : message;
	}
	return undefined;
}

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
	const said = serviceMessage(body);
	const route = `${request.method} ${request.path}`;
	let message: string;
	let description: string | undefined;
	if (status === 401) {
		message = API_KEY_REJECTED;
	} else if (status === 404 && !isServiceError(body)) {
		// The service answers every error with its error body: a 404 without it comes from another server.
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
	// The body given to NodeApiError holds no message of its own, or n8n would show it again as the description.
	const error = new NodeApiError(context.getNode(), { httpCode: String(status) } as JsonObject, {
		message,
		description,
		httpCode: String(status),
	});
	if (reason === 'may-have-acted') error.context[OUTCOME_UNKNOWN] = true;
	return error;
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
	return new NodeApiError(context.getNode(), { httpCode: String(status) } as JsonObject, {
		message: `The Base URL answered ${route} with a redirect (${status}) to ${describeLocation(location, url)}: redirects are not followed, so the API key was not sent there; ${BASE_URL_HINT}`,
		httpCode: String(status),
	});
}

export function networkError(
	context: VoiceAgentContext,
	request: ApiRequest,
	code: string | undefined,
	spent: RetrySpent,
	reason: StopReason,
	timeoutMs: number,
): NodeApiError {
	// Not under `code`: NodeApiError takes that for the HTTP status and swaps this message for a generic one.
	const error = new NodeApiError(
		context.getNode(),
		{ networkErrorCode: code ?? null } as JsonObject,
		{
			message: `Could not reach the Voice Agent API: ${describeNetworkFailure(code, timeoutMs)}`,
			description: retryStory(request, spent, reason),
		},
	);
	if (reason === 'may-have-acted') error.context[OUTCOME_UNKNOWN] = true;
	return error;
}

/** A credential or parameter that cannot work, found before anything is sent. */
export function configurationError(
	context: VoiceAgentContext,
	message: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description });
}

/** An error as the node reports it: the node's own errors pass as they are, anything else is wrapped. */
export function asNodeError(
	context: VoiceAgentContext,
	error: unknown,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeApiError(context.getNode(), error as JsonObject);
}
