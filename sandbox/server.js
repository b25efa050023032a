'use strict';

const http = require('node:http');
const https = require('node:https');
const { ApiError, errorBody } = require('./errors');
const { isoTime } = require('./records');
const { handleControl } = require('./control');
const { readBody, send, errorReply, answer, queryObject } = require('./httpMessages');
const { proxyErrorPage } = require('./answerForms');

/** @typedef {import('./app').SandboxApp} SandboxApp */
/** @typedef {import('./api').Reply} Reply */
/** @typedef {import('./api').Handler} Handler */
/** @typedef {import('./store').Account} Account */
/** @typedef {import('./httpMessages').RequestBody} RequestBody */

const CONTROL_PREFIX = '/_sandbox';

/**
 * The sandbox's server: HTTP, or HTTPS with `tls` (a key and certificate in PEM).
 * @param {SandboxApp} app
 * @param {{ key: string, cert: string }} [tls]
 * @returns {http.Server}
 */
function createHttpServer(app, tls) {
	/** @type {http.RequestListener} */
	const listener = (request, response) => {
		handle(app, request, response).catch((error) => {
			if (response.headersSent) response.destroy();
			else send(response, errorReply(error));
		});
	};
	return tls ? https.createServer(tls, listener) : http.createServer(listener);
}

/**
 * @param {SandboxApp} app
 * @param {http.IncomingMessage} request
 * @param {http.ServerResponse} response
 */
async function handle(app, request, response) {
	const method = request.method ?? 'GET';
	const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
	const at = isoTime(Date.now());
	const body = await readBody(request);

	if (url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
		send(response, await answer(() => handleControl(app, method, url.pathname, body)));
		return;
	}

	app.traffic.begin(request.socket);
	const { reply, fault, createdCallId } = await handleApi(
		app,
		method,
		url,
		request.headers.authorization,
		body,
	).finally(() => app.traffic.end());
	// Logged before answering, so a client that reads the log right after its answer finds its request.
	app.requestLog.push({
		method,
		path: url.pathname,
		query: queryObject(url.searchParams),
		status: reply ? reply.status : null,
		body: body.json ?? null,
		at,
		fault,
		...((reply?.createdCallId ?? createdCallId)
			? { created_call_id: reply?.createdCallId ?? createdCallId }
			: {}),
	});
	// What the contract leaves open, as switched (variants.js): the Date header, and how times are written.
	// The header is written from the sandbox's own clock, the one its `created_at` comes from, as a real
	// service's are (Node's automatic header reads another clock when a test sets the time).
	response.sendDate = false;
	if (app.variants.dateHeader) response.setHeader('Date', new Date().toUTCString());
	if (reply) send(response, { ...reply, body: app.variants.restamp(reply.body) });
	else request.socket.destroy();
}

/**
 * An API request, in the order a client meets the checks: latency, route outside /v1, auth, route,
 * body (413, 400), rate limit (429), injected faults, then the endpoint itself.
 * @param {SandboxApp} app
 * @param {string} method
 * @param {URL} url
 * @param {string | undefined} authorization
 * @param {RequestBody} body
 * @returns {Promise<{ reply: Reply | null, fault: 'error' | 'reset' | null, createdCallId?: string }>} reply
 *   null: reset the socket; `createdCallId`: the call a request reset after acting created
 */
async function handleApi(app, method, url, authorization, body) {
	if (app.latencyMs > 0) await app.requestTimers.sleep(app.latencyMs);
	/** @type {{ handler: Handler, route: string, account: Account }} */
	let target;
	try {
		target = resolveTarget(app, method, url.pathname, authorization, body);
	} catch (error) {
		return { reply: errorReply(error), fault: null };
	}
	const { handler, route, account } = target;

	const fault = app.faults.draw(route);
	if (fault && fault.latencyMs > 0) await app.requestTimers.sleep(fault.latencyMs);
	const act = () => answer(() => handler({ account, query: url.searchParams, body: body.json }));
	if (!fault?.action) return { reply: app.variants.oddAnswer(route, await act()), fault: null };
	// "after": the service acts, then the client sees an error or a dropped connection (an ambiguous failure).
	const acted = fault.when === 'after' ? await act() : undefined;
	const created = acted?.createdCallId ? { createdCallId: acted.createdCallId } : {};
	if (fault.action === 'reset') return { reply: null, fault: 'reset', ...created };
	const headers = fault.status === 429 ? { 'retry-after': String(fault.retryAfterS) } : undefined;
	if (fault.status >= 500 && app.variants.proxyErrors) {
		// A proxy in front of the service answers for it, with a page of its own.
		return {
			reply: { status: fault.status, body: null, html: proxyErrorPage(fault.status), ...created },
			fault: 'error',
		};
	}
	const message = `Injected fault (sandbox): ${route} answered ${fault.status}${fault.when === 'after' ? ' after the request was carried out' : ''}`;
	return {
		reply: { status: fault.status, body: errorBody(fault.status, message), headers, ...created },
		fault: 'error',
	};
}

/**
 * The checks before an endpoint runs; each throws the ApiError a client gets.
 * @param {SandboxApp} app
 * @param {string} method
 * @param {string} path
 * @param {string | undefined} authorization
 * @param {RequestBody} body
 * @returns {{ handler: Handler, route: string, account: Account }}
 */
function resolveTarget(app, method, path, authorization, body) {
	if (path !== '/v1' && !path.startsWith('/v1/')) {
		throw new ApiError(404, `No such endpoint: ${method} ${path}. API paths start with /v1`);
	}
	const apiKey = bearerToken(authorization);
	const account = app.store.account(apiKey);
	if (!account) throw new ApiError(401, 'Invalid API key');
	const relativePath = path.slice('/v1'.length);
	const route = `${method} ${relativePath}`;
	const handler = app.apiRoutes.get(route);
	if (!handler) {
		const allowed = [...app.apiRoutes.keys()]
			.filter((key) => key.endsWith(` ${relativePath}`))
			.map((key) => key.split(' ')[0]);
		if (allowed.length > 0) {
			throw new ApiError(
				405,
				`${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
				{ allow: allowed.join(', ') },
			);
		}
		throw new ApiError(404, `No such endpoint: ${method} ${path}`);
	}
	if (body.problem) throw body.problem;
	const rate = app.faults.rateLimitFor(route);
	const wait = rate > 0 ? app.rateLimits.take(`${apiKey} ${route}`, rate, Date.now()) : 0;
	if (wait > 0) {
		throw new ApiError(
			429,
			`Rate limit of ${rate} requests per second for ${route} exceeded; retry in ${wait} s`,
			{
				'retry-after': String(wait),
			},
		);
	}
	return { handler, route, account };
}

/**
 * The key of `Authorization: Bearer <key>`; 401 when the header is missing or malformed.
 * @param {string | undefined} header
 * @returns {string}
 */
function bearerToken(header) {
	if (!header)
		throw new ApiError(401, 'Missing API key: send the header "Authorization: Bearer <API key>"');
	const match = /^Bearer +(\S+) *$/i.exec(header);
	if (!match)
		throw new ApiError(401, 'Malformed Authorization header: expected "Bearer <API key>"');
	return match[1];
}

module.exports = { createHttpServer };
