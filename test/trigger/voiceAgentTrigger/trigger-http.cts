/**
 * What n8n's express layer gives a webhook node, following its code (packages/cli:
 * middlewares/body-parser.ts, webhooks/webhook-helpers.ts): the parsed query and body, and the express
 * request and response objects, here written straight to a node:http response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { IWorkflowExecuteAdditionalData } from 'n8n-workflow';

export type Query = Record<string, string | string[]>;

export async function readBody(request: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/** The query as express parses simple query strings: a repeated name becomes an array. */
export function parseQuery(search: URLSearchParams): Query {
	const query: Query = {};
	for (const [name, value] of search) {
		const existing = query[name];
		query[name] =
			existing === undefined
				? value
				: [...(Array.isArray(existing) ? existing : [existing]), value];
	}
	return query;
}

/**
 * n8n's body parser: JSON or text, {} when there is no body; undefined for a body that says it is JSON
 * and is not (n8n answers 422).
 */
export function parseBody(request: IncomingMessage, raw: Buffer): { body: unknown } | undefined {
	const contentType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	let body: unknown;
	if (raw.length > 0) {
		if (contentType === 'application/json') {
			try {
				body = JSON.parse(raw.toString('utf8'));
			} catch {
				return undefined;
			}
		} else if (contentType === 'text/plain') {
			body = raw.toString('utf8');
		}
	}
	return { body: body || {} };
}

/** An answer as sent, parsed when it is JSON. */
export function parseAnswer(text: string): unknown {
	try {
		return text === '' ? null : JSON.parse(text);
	} catch {
		return text;
	}
}

export interface ExpressPair {
	httpRequest: IWorkflowExecuteAdditionalData['httpRequest'];
	httpResponse: IWorkflowExecuteAdditionalData['httpResponse'];
	/** What the node wrote through the response, if it answered itself. */
	written(): { status: number; text: string } | undefined;
}

/** The express request and response a webhook node sees, over a node:http request and response. */
export function expressPair(
	request: IncomingMessage,
	response: ServerResponse,
	url: URL,
	query: Query,
	body: unknown,
): ExpressPair {
	let written: { status: number; text: string } | undefined;
	// As express's response, which n8n gives the node and also answers through itself: send() and json()
	// go through end(), and n8n sets the status and headers before the body.
	const expressResponse = {
		get statusCode() {
			return response.statusCode;
		},
		set statusCode(code: number) {
			response.statusCode = code;
		},
		status(code: number) {
			response.statusCode = code;
			return this;
		},
		setHeader(name: string, value: string) {
			response.setHeader(name, value);
			return this;
		},
		getHeader(name: string) {
			return response.getHeader(name);
		},
		json(value: unknown) {
			if (!response.hasHeader('content-type'))
				response.setHeader('content-type', 'application/json; charset=utf-8');
			return this.send(JSON.stringify(value));
		},
		send(value?: unknown) {
			const text =
				value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
			if (!response.hasHeader('content-type'))
				response.setHeader('content-type', 'text/html; charset=utf-8');
			return this.end(text);
		},
		end(text?: string) {
			written = { status: response.statusCode, text: text ?? '' };
			response.end(text);
			return this;
		},
		on(event: string, listener: () => void) {
			response.on(event, listener);
			return this;
		},
		once(event: string, listener: () => void) {
			response.once(event, listener);
			return this;
		},
		get headersSent() {
			return response.headersSent;
		},
		get writableEnded() {
			return response.writableEnded;
		},
		get destroyed() {
			return response.destroyed;
		},
	};
	// Express's request is node's IncomingMessage: its socket tells whether the sender still waits.
	const expressRequest = {
		socket: request.socket,
		method: request.method,
		url: request.url,
		path: url.pathname,
		headers: request.headers,
		query,
		params: {},
		body,
	};
	return {
		httpRequest: expressRequest as unknown as ExpressPair['httpRequest'],
		httpResponse: expressResponse as unknown as ExpressPair['httpResponse'],
		written: () => written,
	};
}
