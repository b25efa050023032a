import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

export type VoiceAgentContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export const CREDENTIAL_TYPE = 'voiceAgentApi';

/** The service serves at most this many items per page (spec part 8). */
export const MAX_PAGE_SIZE = 100;

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_RETRIES = 3;
const BACKOFF_BASE_MS = 300;
const BACKOFF_CAP_MS = 5_000;
const MAX_RATE_LIMIT_RETRIES = 5;
/** Longer waits than this fail instead: a workflow should not hang for minutes on one request. */
const MAX_RETRY_AFTER_SECONDS = 60;

/** Network failures that happen before a request reaches the service: retrying them cannot act twice. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/**
	 * Whether sending the request twice has the same effect as sending it once. Only such requests
	 * are retried after a failure whose outcome is unknown (5xx, timeout, connection reset).
	 */
	idempotent: boolean;
	/** What a 404 means, for the error message, e.g. `Call "call_123"`. */
	notFound?: string;
}

const baseUrlCache = new WeakMap<object, Promise<string>>();

async function readBaseUrl(context: VoiceAgentContext): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	if (!/^https?:\/\/\S+$/i.test(baseUrl)) {
		throw new NodeApiError(context.getNode(), {} as JsonObject, {
			message: 'The Voice Agent API credential has no valid Base URL',
			description: 'Set the Base URL to the API address including /v1, e.g. https://api.example.com/v1',
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

/** Exponential backoff with full jitter in its upper half, so parallel retries spread out. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Seconds to wait from a Retry-After header (seconds or HTTP date); undefined when absent or unreadable. */
export function parseRetryAfterSeconds(header: unknown, now: number = Date.now()): number | undefined {
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

function describeNetworkFailure(code: string | undefined): string {
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
			return `the service did not answer within ${REQUEST_TIMEOUT_MS / 1000} seconds`;
		default:
			return code ? `network error ${code}` : 'the request failed before the service answered';
	}
}

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

function apiError(
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
		message = said ? `The Voice Agent API rejected the request: ${said}` : `${route} failed (${status})`;
		description = undefined;
	}
	const error = new NodeApiError(
		context.getNode(),
		{ status, error: said ?? null } as JsonObject,
		{ message, description, httpCode: String(status) },
	);
	if (!request.idempotent && status >= 500) error.context[OUTCOME_UNKNOWN] = true;
	return error;
}

function networkError(
	context: VoiceAgentContext,
	request: ApiRequest,
	code: string | undefined,
	attempts: number,
) {
	// Not under `code`: NodeApiError takes that for the HTTP status and swaps this message for a generic one.
	const error = new NodeApiError(context.getNode(), { networkErrorCode: code ?? null } as JsonObject, {
		message: `Could not reach the Voice Agent API: ${describeNetworkFailure(code)}`,
		description:
			attempts > 1
				? `${request.method} ${request.path} failed ${attempts} times.`
				: `${request.method} ${request.path} failed and was not retried, since the service may have acted on it.`,
	});
	if (!request.idempotent && !(code && NOT_SENT_CODES.has(code))) {
		error.context[OUTCOME_UNKNOWN] = true;
	}
	return error;
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
			throw networkError(context, request, code, failures + 1);
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

export interface CursorPage {
	cursor?: string | null;
	[key: string]: unknown;
}

/**
 * Collects the items of a cursor-paginated list (GET /agents, GET /calls). With `max` it asks for
 * exactly what is still missing, otherwise for full pages; either way N items cost ceil(N/100)
 * requests. A cursor the service already gave is an error, never a loop.
 */
export async function paginateCursor<T>(
	context: VoiceAgentContext,
	path: string,
	itemsKey: string,
	qs: IDataObject = {},
	max?: number,
): Promise<T[]> {
	const results: T[] = [];
	const seenCursors = new Set<string>();
	let cursor: string | undefined;
	while (max === undefined || results.length < max) {
		const limit = max === undefined ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, max - results.length);
		const page = await voiceAgentApiRequest<CursorPage>(context, {
			method: 'GET',
			path,
			qs: cursor === undefined ? { ...qs, limit } : { ...qs, limit, cursor },
			idempotent: true,
		});
		const items = page[itemsKey];
		if (!Array.isArray(items)) {
			throw new NodeApiError(context.getNode(), page as JsonObject, {
				message: `The Voice Agent API answered GET ${path} without a "${itemsKey}" list`,
			});
		}
		for (const item of items as T[]) {
			if (max !== undefined && results.length >= max) break;
			results.push(item);
		}
		const next = page.cursor;
		if (typeof next !== 'string' || next === '' || items.length === 0) break;
		if (seenCursors.has(next)) {
			throw new NodeApiError(context.getNode(), { cursor: next } as JsonObject, {
				message: `The Voice Agent API repeated a pagination cursor for GET ${path}; stopped after ${results.length} items instead of looping`,
			});
		}
		seenCursors.add(next);
		cursor = next;
	}
	return results;
}
