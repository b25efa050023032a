import type {
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { apiError, networkError } from './errors';
import { backoffDelayMs, networkErrorCode, NOT_SENT_CODES, parseRetryAfterSeconds } from './retry';
import type { ApiRequest, VoiceAgentContext } from './types';

export const CREDENTIAL_TYPE = 'voiceAgentApi';

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_RETRIES = 3;
const MAX_RATE_LIMIT_RETRIES = 5;
/** Longer waits than this fail instead: a workflow should not hang for minutes on one request. */
const MAX_RETRY_AFTER_SECONDS = 60;

const baseUrlCache = new WeakMap<object, Promise<string>>();

async function readBaseUrl(context: VoiceAgentContext): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	if (!/^https?:\/\/\S+$/i.test(baseUrl)) {
		throw new NodeApiError(context.getNode(), {} as JsonObject, {
			message: 'The Voice Agent API credential has no valid Base URL',
			description:
				'Set the Base URL to the API address including /v1, e.g. https://api.example.com/v1',
		});
	}
	return baseUrl.replace(/\/+$/, '');
}

/** The credential's Base URL, read once per node run rather than once per request. */
function baseUrlFor(context: VoiceAgentContext): Promise<string> {
	let baseUrl = baseUrlCache.get(context);
	if (!baseUrl) {
		baseUrl = readBaseUrl(context);
		baseUrlCache.set(context, baseUrl);
		baseUrl.catch(() => baseUrlCache.delete(context));
	}
	return baseUrl;
}

/**
 * Sends one request to the Voice Agent API with the node's credential and returns the parsed body.
 * Rate limits (429) are waited out for any request, since the service did not act. Server errors and
 * network failures are retried only when that cannot act twice: idempotent requests, or failures
 * that happened before the request was sent.
 */
export async function voiceAgentApiRequest<T = IDataObject>(
	context: VoiceAgentContext,
	request: ApiRequest,
): Promise<T> {
	const baseUrl = await baseUrlFor(context);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		timeout: REQUEST_TIMEOUT_MS,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	let failures = 0;
	let rateLimited = 0;
	for (;;) {
		let response: IN8nHttpFullResponse;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				options,
			)) as IN8nHttpFullResponse;
		} catch (error) {
			// The helper's error may carry the request configuration, headers included: it is never
			// passed on, only the network error code is kept.
			const code = networkErrorCode(error);
			const retryable = request.idempotent || (code !== undefined && NOT_SENT_CODES.has(code));
			if (retryable && failures < MAX_RETRIES) {
				await sleep(backoffDelayMs(failures++));
				continue;
			}
			throw networkError(context, request, code, failures + 1, REQUEST_TIMEOUT_MS);
		}
		const status = response.statusCode;
		if (status >= 200 && status < 300) return response.body as T;
		if (status === 429) {
			const retryAfter = parseRetryAfterSeconds(response.headers?.['retry-after']);
			const wait = retryAfter ?? Math.ceil(backoffDelayMs(rateLimited) / 1000);
			if (wait <= MAX_RETRY_AFTER_SECONDS && rateLimited < MAX_RATE_LIMIT_RETRIES) {
				rateLimited++;
				await sleep(wait * 1000);
				continue;
			}
			throw apiError(context, request, status, response.body, retryAfter);
		}
		if (status >= 500 && request.idempotent && failures < MAX_RETRIES) {
			await sleep(backoffDelayMs(failures++));
			continue;
		}
		throw apiError(context, request, status, response.body);
	}
}
