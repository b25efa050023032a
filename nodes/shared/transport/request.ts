/**
 * The one way the nodes talk to the Voice Agent API: authenticated requests, with a retry policy that
 * never acts twice and knows where it runs (`retryPolicy.ts`), beside cursor pagination and fan-out.
 */
import type {
	ICredentialsDecrypted,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import { BASE_URL_NOT_HTTP, checkBaseUrl } from '../baseUrl';
import { BASE_URL_HINT, CREDENTIAL_TYPE } from '../credential';
import { fingerprint } from '../fingerprint';
import { readOncePerRun } from '../runCache';
import { cancelSignalOf, throwIfCancelled, waitUnlessCancelled } from './cancel';
import { configurationError } from '../errors';
import { apiError, networkError, redirectError } from './errors';
import { networkErrorCode } from './network';
import {
	decideRetry,
	parseRetryAfterMs,
	RETRY_BUDGETS,
	type AttemptOutcome,
	type RetrySpent,
} from './retryPolicy';
import type { ApiRequest, RequestOptions, VoiceAgentContext } from './types';

/** What every request of a run needs from the credential: the Base URL and the decrypted credential. */
interface Credential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
}

async function readCredential(context: VoiceAgentContext): Promise<Credential> {
	const data = await context.getCredentials(CREDENTIAL_TYPE);
	const checked = checkBaseUrl(data.baseUrl);
	if (!checked.ok) {
		throw configurationError(context.getNode(), {
			message:
				checked.problem === BASE_URL_NOT_HTTP
					? `The Voice Agent API credential has no valid Base URL: ${BASE_URL_HINT}`
					: `The Voice Agent API credential's Base URL ${checked.problem}; ${BASE_URL_HINT}`,
		});
	}
	const { baseUrl } = checked.value;
	const { id, name } = context.getNode().credentials?.[CREDENTIAL_TYPE] ?? {};
	return { baseUrl, decrypted: { id: id ?? '', name: name ?? '', type: CREDENTIAL_TYPE, data } };
}

/**
 * The credential, read and decrypted once per node run rather than once per request: handed to n8n's
 * helper with every request, it spares n8n a database read and a decryption each time.
 */
function credentialFor(context: VoiceAgentContext): Promise<Credential> {
	return readOncePerRun(context, 'credential', async () => await readCredential(context));
}

/**
 * The account the node's credential reaches, as a fingerprint of its Base URL and API key: guards kept
 * for the whole n8n process (the gate of Call → Create, Max Calls per Hour) tell accounts apart by it, never by the key.
 */
export async function accountOf(context: VoiceAgentContext): Promise<string> {
	return await readOncePerRun(context, 'account', async () => {
		const { baseUrl, decrypted } = await credentialFor(context);
		return fingerprint(`${baseUrl}\n${String(decrypted.data?.apiKey ?? '')}`);
	});
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
	const credential = await credentialFor(context);
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url: `${credential.baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		timeout: budget.timeoutMs,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// A redirect answer is reported, never followed: the key must not reach another origin.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		...(signal ? { abortSignal: signal } : {}),
	};
	const spent: RetrySpent = { failures: 0, rateLimitWaits: 0, waitedMs: 0 };
	for (;;) {
		throwIfCancelled(context, signal);
		await options.observer?.beforeAttempt?.();
		const started = Date.now();
		let response: IN8nHttpFullResponse | undefined;
		let outcome: AttemptOutcome;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				httpOptions,
				{ credentialsDecrypted: credential.decrypted },
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
			outcome = { kind: 'network', code: networkErrorCode(error) };
		}
		options.observer?.onAttempt({
			status: outcome.kind === 'answer' ? outcome.status : undefined,
			latencyMs: Date.now() - started,
			retryAfterMs: outcome.kind === 'answer' ? outcome.retryAfterMs : undefined,
			serviceDate: response?.headers?.date as string | undefined,
		});
		// What the service did for a request that acts (a call placed) is returned even if the workflow
		// was stopped meanwhile: losing it would forget a call that exists.
		const acted = outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300;
		if (acted && !request.idempotent) return (response as IN8nHttpFullResponse).body as T;
		throwIfCancelled(context, signal);
		const decision = decideRetry(outcome, request.idempotent, spent, budget);
		if (decision.retry) {
			if (outcome.kind === 'answer' && outcome.status === 429) spent.rateLimitWaits++;
			else spent.failures++;
			spent.waitedMs += decision.waitMs;
			await waitUnlessCancelled(context, decision.waitMs);
			continue;
		}
		if (decision.reason === 'success') return (response as IN8nHttpFullResponse).body as T;
		if (outcome.kind === 'answer' && outcome.status >= 300 && outcome.status < 400) {
			throw redirectError(
				context,
				request,
				outcome.status,
				response?.headers?.location,
				httpOptions.url,
			);
		}
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
