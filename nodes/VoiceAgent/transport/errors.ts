import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { describeNetworkFailure, NOT_SENT_CODES } from './retry';
import type { ApiRequest, VoiceAgentContext } from './types';

/**
 * Marks a failure after which the service may or may not have acted. Only requests that are not
 * idempotent carry it, so their caller can check what happened before reporting an error.
 */
const OUTCOME_UNKNOWN = 'outcomeUnknown';

export function isOutcomeUnknown(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[OUTCOME_UNKNOWN] === true;
}

function serviceMessage(body: unknown): string | undefined {
	if (body && typeof body === 'object' && typeof (body as IDataObject).message === 'string') {
		return (body as IDataObject).message as string;
	}
	return undefined;
}

export function apiError(
	context: VoiceAgentContext,
	request: ApiRequest,
	status: number,
	body: unknown,
	retryAfter?: number,
): NodeApiError {
	const said = serviceMessage(body);
	const route = `${request.method} ${request.path}`;
	let message: string;
	let description = said;
	if (status === 401) {
		message = 'The Voice Agent API rejected the API key (401 Unauthorized)';
		description = `Check the Voice Agent API credential: its API key must be valid for this Base URL.${said ? ` The service said: ${said}` : ''}`;
	} else if (status === 404) {
		message = `${request.notFound ?? `The resource of ${route}`} was not found`;
	} else if (status === 429) {
		message =
			retryAfter === undefined
				? 'The Voice Agent API is rate limiting this API key; try again later'
				: `The Voice Agent API is rate limiting this API key; retry after ${retryAfter} seconds`;
	} else if (status >= 500) {
		message = `The Voice Agent service failed to process ${route} (${status})`;
	} else {
		message = said
			? `The Voice Agent API rejected the request: ${said}`
			: `${route} failed (${status})`;
		description = undefined;
	}
	const error = new NodeApiError(context.getNode(), { status, error: said ?? null } as JsonObject, {
		message,
		description,
		httpCode: String(status),
	});
	if (!request.idempotent && status >= 500) error.context[OUTCOME_UNKNOWN] = true;
	return error;
}

export function networkError(
	context: VoiceAgentContext,
	request: ApiRequest,
	code: string | undefined,
	attempts: number,
	timeoutMs: number,
) {
	// Not under `code`: NodeApiError takes that for the HTTP status and swaps this message for a generic one.
	const error = new NodeApiError(
		context.getNode(),
		{ networkErrorCode: code ?? null } as JsonObject,
		{
			message: `Could not reach the Voice Agent API: ${describeNetworkFailure(code, timeoutMs)}`,
			description:
				attempts > 1
					? `${request.method} ${request.path} failed ${attempts} times.`
					: `${request.method} ${request.path} failed and was not retried, since the service may have acted on it.`,
		},
	);
	if (!request.idempotent && !(code && NOT_SENT_CODES.has(code))) {
		error.context[OUTCOME_UNKNOWN] = true;
	}
	return error;
}
