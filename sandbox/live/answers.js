'use strict';

// How the live service writes its answers. No handler sets a Content-Type: a success is a row or a page
// written by Go's json.Encoder (a trailing newline) and sniffed as `text/plain; charset=utf-8`. An error is
// Go's http.Error: plain text, the message and a newline, with `X-Content-Type-Options: nosniff`.

const http = require('node:http');
const { ApiError } = require('../errors');
const { isObject } = require('../checks');
const { oddReply, proxyErrorPage } = require('../answerForms');

/** @typedef {import('../api').Reply} Reply */
/** @typedef {import('../faults').Fault} Fault */
/** @typedef {import('../variants').OddAnswer} OddAnswer */

/**
 * A success as the live service sends it.
 * @param {unknown} body
 * @returns {Reply}
 */
const goJson = (body) => ({ status: 200, body, goJson: true });

/**
 * An error as Go's http.Error sends it.
 * @param {number} status
 * @param {string} message
 * @param {Record<string, string>} [headers]
 * @returns {Reply}
 */
function textError(status, message, headers = {}) {
	return {
		status,
		body: null,
		text: `${message}\n`,
		headers: { 'x-content-type-options': 'nosniff', ...headers },
	};
}

/**
 * An endpoint's error: the live handlers throw ApiErrors in the live service's words, sent as they are;
 * anything else is a bug of the sandbox, a 500 saying so.
 * @param {unknown} error
 * @returns {Reply}
 */
function liveErrorReply(error) {
	if (error instanceof ApiError) return textError(error.status, error.message, error.headers);
	return textError(500, `Sandbox error: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * A check before the endpoint failed (server.js: path, key, route, body size, rate limit): the words of the
 * live service's middleware and of Go's router. A 413 and a 429 keep the sandbox's message and headers.
 * @param {unknown} error
 * @returns {Reply}
 */
function liveCheckReply(error) {
	if (!(error instanceof ApiError)) return liveErrorReply(error);
	switch (error.status) {
		case 401:
			return textError(401, 'Unauthorized');
		case 404:
			return textError(404, '404 page not found');
		case 405:
			return textError(405, 'Method Not Allowed', error.headers);
		case 400:
			return textError(400, 'Invalid request payload');
		default:
			return liveErrorReply(error);
	}
}

/**
 * What an endpoint answers when it fails inside, by route: the sandbox's wording, except POST /call, whose
 * two failures the live code names. Before the work: the phone network refused the call (nothing placed);
 * after it: the phone is ringing and saving the call failed.
 * @type {Record<string, [before: string, after: string]>}
 */
const FAILURES = {
	'POST /agent': ['Failed to save agent', 'Failed to save agent'],
	'GET /agent': ['Failed to fetch agent', 'Failed to fetch agent'],
	'PUT /agent': ['Internal Server Error', 'Internal Server Error'],
	'DELETE /agent': ['Failed to delete agent', 'Failed to delete agent'],
	'GET /agents': ['Failed to fetch agents', 'Failed to fetch agents'],
	'POST /call': ['Failed to make phone call', 'Failed to create call record'],
	'GET /call': ['Failed to fetch call', 'Failed to fetch call'],
	'POST /call/context': ['Failed to update call context', 'Failed to update call context'],
	'GET /calls': ['Failed to fetch calls', 'Failed to fetch calls'],
};

/**
 * An injected error on a live account (POST /_sandbox/faults): a 500 in the endpoint's words, a 429 with
 * Retry-After, any other status with its reason phrase; a proxy's page for 5xx with `proxy_errors`.
 * @param {string} route
 * @param {Fault} fault
 * @param {boolean} proxyErrors
 * @returns {Reply}
 */
function liveFaultReply(route, fault, proxyErrors) {
	if (fault.status >= 500 && proxyErrors)
		return { status: fault.status, body: null, html: proxyErrorPage(fault.status) };
	if (fault.status === 429)
		return textError(429, 'Too Many Requests', { 'retry-after': String(fault.retryAfterS) });
	if (fault.status === 500) {
		const [before, after] = FAILURES[route] ?? ['Internal Server Error', 'Internal Server Error'];
		return textError(500, fault.when === 'after' ? after : before);
	}
	return textError(fault.status, http.STATUS_CODES[fault.status] ?? 'Error');
}

/**
 * The odd-answer variants (variants.js) on a live account: the same odd answers, sent as the live service
 * sends JSON; `missing_fields` and `mistyped_fields` concern `id` and `in_progress` (a call) or `calls`.
 * @param {'call' | 'page'} kind
 * @param {Exclude<OddAnswer, 'normal'>} odd
 * @param {unknown} body
 * @returns {Reply}
 */
function liveOddReply(kind, odd, body) {
	const object = /** @type {Record<string, unknown>} */ (isObject(body) ? body : {});
	switch (odd) {
		case 'null':
			return goJson(null);
		case 'array':
			return goJson(kind === 'call' ? [object] : (object.calls ?? []));
		case 'html':
			return oddReply(kind, odd, body);
		case 'truncated': {
			const text = `${JSON.stringify(object)}\n`;
			return { status: 200, body: null, text: text.slice(0, Math.floor(text.length / 2)) };
		}
		case 'missing_fields': {
			const { id: _id, in_progress: _live, calls: _calls, ...rest } = object;
			return goJson(kind === 'call' ? rest : { ...rest, num_items: 0 });
		}
		default:
			return goJson(
				kind === 'call'
					? { ...object, id: String(object.id), in_progress: String(object.in_progress) }
					: { ...object, calls: { items: object.calls } },
			);
	}
}

module.exports = {
	goJson,
	textError,
	liveErrorReply,
	liveCheckReply,
	liveFaultReply,
	liveOddReply,
};
