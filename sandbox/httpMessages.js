'use strict';

// The HTTP messages of the API and the control endpoints: request bodies in (JSON, at most 1 MiB), JSON
// replies and error bodies out (and the live profile's plain-text forms).

const { ApiError, errorBody } = require('./errors');

/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {import('node:http').ServerResponse} ServerResponse */
/** @typedef {import('./api').Reply} Reply */

/** Request bodies larger than this are answered with 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request body: `json` is the parsed value (undefined when the body is empty), `problem` the 413 or 400
 * to answer instead when it is too large or not JSON.
 * @typedef {{ json: unknown, problem: ApiError | null }} RequestBody
 */

/**
 * The reply of an ApiError; any other exception is a sandbox bug, answered as a 500 with its message.
 * @param {unknown} error
 * @returns {Reply}
 */
function errorReply(error) {
	if (error instanceof ApiError) {
		return {
			status: error.status,
			body: errorBody(error.status, error.message),
			headers: error.headers,
		};
	}
	const message = error instanceof Error ? error.message : String(error);
	return { status: 500, body: errorBody(500, `Sandbox error: ${message}`) };
}

/**
 * @param {() => Reply | Promise<Reply>} run
 * @param {(error: unknown) => Reply} [toReply] how an error is answered (the live profile's own way)
 * @returns {Promise<Reply>}
 */
async function answer(run, toReply = errorReply) {
	try {
		return await run();
	} catch (error) {
		return toReply(error);
	}
}

/**
 * Reads the whole body. Past MAX_BODY_BYTES the rest is read and dropped, so the client can finish sending
 * and read the 413.
 * @param {IncomingMessage} request
 * @returns {Promise<RequestBody>}
 */
async function readBody(request) {
	/** @type {Buffer[]} */
	const chunks = [];
	let size = 0;
	for await (const chunk of request) {
		size += chunk.length;
		if (size <= MAX_BODY_BYTES) chunks.push(chunk);
	}
	if (size > MAX_BODY_BYTES) {
		return {
			json: undefined,
			problem: new ApiError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)`),
		};
	}
	const text = Buffer.concat(chunks).toString('utf8');
	if (text.trim() === '') return { json: undefined, problem: null };
	try {
		return { json: JSON.parse(text), problem: null };
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		return {
			json: undefined,
			problem: new ApiError(400, `The request body is not valid JSON: ${reason}`),
		};
	}
}

/**
 * The query string as an object for the request log; a repeated parameter becomes an array.
 * @param {URLSearchParams} params
 * @returns {Record<string, string | string[]>}
 */
function queryObject(params) {
	/** @type {Record<string, string | string[]>} */
	const query = {};
	for (const [name, value] of params) {
		const previous = query[name];
		query[name] =
			previous === undefined
				? value
				: [...(Array.isArray(previous) ? previous : [previous]), value];
	}
	return query;
}

/**
 * @param {ServerResponse} response
 * @param {Reply} reply
 */
function send(response, reply) {
	if (reply.empty) {
		response.writeHead(reply.status, { 'content-length': 0, ...reply.headers });
		response.end();
		return;
	}
	const json = 'application/json; charset=utf-8';
	const plain = 'text/plain; charset=utf-8';
	const [type, text] =
		reply.html !== undefined
			? ['text/html', reply.html]
			: reply.text !== undefined
				? [plain, reply.text]
				: reply.goJson
					? [plain, `${JSON.stringify(reply.body)}\n`]
					: [json, reply.json ?? JSON.stringify(reply.body)];
	response.writeHead(reply.status, {
		'content-type': type,
		'content-length': Buffer.byteLength(text),
		...reply.headers,
	});
	response.end(text);
}

module.exports = { readBody, send, errorReply, answer, queryObject };
