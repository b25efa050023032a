import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { FieldLabels } from '../fields';
import type { RequestPurpose } from './retryPolicy';

/** Every n8n context a Voice Agent request is made from. */
export type VoiceAgentContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| IPollFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/**
	 * Whether sending the request twice has the same effect as sending it once. Only such requests
	 * are repeated after a failure whose outcome is unknown (5xx, timeout, connection reset).
	 */
	idempotent: boolean;
	/** What a 404 means, for the error message, e.g. `Call "call_123"`. */
	notFound?: string;
	/** The labels of the body's fields, to name them in the service's 400 messages as the node does. */
	fields?: FieldLabels;
}

/** One attempt of a request: its status (none when no answer came) and how long it took. */
export interface AttemptReport {
	status?: number;
	latencyMs: number;
	/** What a 429's Retry-After asked for. */
	retryAfterMs?: number;
	/** The answer's Date header: the service's own time, for comparisons with its timestamps. */
	serviceDate?: string;
}

/**
 * Told about every attempt, e.g. by a fan-out that adapts its concurrency to the service: it may hold
 * an attempt back until it has a slot for it (`beforeAttempt`), and hears how each one went.
 */
export interface RequestObserver {
	beforeAttempt?(): Promise<void>;
	onAttempt(attempt: AttemptReport): void;
}

/** How a request is made: where it runs (its retry budget) and who watches its attempts. */
export interface RequestOptions {
	purpose?: RequestPurpose;
	observer?: RequestObserver;
}

/** How a request with a body is made: also how the caller's parameters name the body's fields. */
export interface BodyRequestOptions extends RequestOptions {
	fields?: FieldLabels;
}
