import type { IDataObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { BASE_URL_HINT, CREDENTIAL_TYPE, normalizedBaseUrl } from '../credential';
import { cancelSignalOf, throwIfCancelled, waitUnlessCancelled } from './cancel';
import { apiError, configurationError, networkError } from './errors';
import { networkErrorCode } from './network';
import {
	decideRetry,
	parseRetryAfterMs,
	RETRY_BUDGETS,
	type AttemptOutcome,
	type RetrySpent,
} from './retryPolicy';
import type { ApiRequest, RequestOptions, VoiceAgentContext } from './types';

const baseUrls = new WeakMap<object, Promise<string>>();

async function readBaseUrl(context: VoiceAgentContext): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = normalizedBaseUrl(credentials.baseUrl);
	if (!baseUrl) {
		throw configurationError(
			context,
			`The Voice Agent API credential has no valid Base URL: ${BASE_URL_HINT}`,
		);
	}
	return baseUrl;
}

/** The credential's Base URL, read once per node run rather than once per request. */
function baseUrlFor(context: VoiceAgentContext): Promise<string> {
	let baseUrl = baseUrls.get(context);
	if (!baseUrl) {
		baseUrl = readBaseUrl(context);
		baseUrls.set(context, baseUrl);
		baseUrl.catch(() => baseUrls.delete(context));
	}
	return baseUrl;
}

/**
 * Sends one request to the Voice Agent API with the node's credential and returns the parsed body,
 * repeating it as the retry policy decides for the place it runs in (`options.purpose`).
 */
export async function voiceAgentApiRequest<T = IDataObject>(
	context: VoiceAgentContext,
	request: ApiRequest,
	options: RequestOptions = {},
): Promise<T> {
	const budget = RETRY_BUDGETS[options.purpose ?? 'batch'];
	const signal = cancelSignalOf(context);
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url: `${await baseUrlFor(context)}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		timeout: budget.timeoutMs,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		...(signal ? { abortSignal: signal } : {}),
	};
	const spent: RetrySpent = { failures: 0, rateLimitWaits: 0, waitedMs: 0 };
	for (;;) {
		throwIfCancelled(context, signal);
		const started = Date.now();
		let response: IN8nHttpFullResponse | undefined;
		let outcome: AttemptOutcome;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				httpOptions,
			)) as IN8nHttpFullResponse;
			outcome = {
				kind: 'answer',
				status: response.statusCode,
				retryAfterMs:
					response.statusCode === 429
						? parseRetryAfterMs(response.headers?.['retry-after'])
						: undefined,
			};
		} catch (error) {
			// The helper's error may carry the request configuration, headers included: it is never
			// passed on, only the network error code is kept.
			throwIfCancelled(context, signal);
			outcome = { kind: 'network', code: networkErrorCode(error) };
		}
		options.observer?.onAttempt({
			status: outcome.kind === 'answer' ? outcome.status : undefined,
			latencyMs: Date.now() - started,
		});
		const decision = decideRetry(outcome, request.idempotent, spent, budget);
		if (decision.retry) {
			if (outcome.kind === 'answer' && outcome.status === 429) spent.rateLimitWaits++;
			else spent.failures++;
			spent.waitedMs += decision.waitMs;
			await waitUnlessCancelled(context, decision.waitMs);
			continue;
		}
		if (decision.reason === 'success') return (response as IN8nHttpFullResponse).body as T;
		if (outcome.kind === 'network') {
			throw networkError(context, request, outcome.code, spent, decision.reason, budget.timeoutMs);
		}
		throw apiError(
			context,
			request,
			outcome.status,
			response?.body,
			spent,
			decision.reason,
			outcome.retryAfterMs,
		);
	}
}
