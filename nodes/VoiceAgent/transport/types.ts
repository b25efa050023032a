import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export type VoiceAgentContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

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
