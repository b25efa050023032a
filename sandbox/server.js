'use strict';

const http = require('node:http');
const https = require('node:https');
const { ApiError } = require('./errors');
const { isoTime } = require('./records');
const { handleControl } = require('./control');
const { readBody, send, errorReply, answer, queryObject } = require('./httpMessages');

/** @typedef {import('./app').SandboxApp} SandboxApp */
/** @typedef {import('./api').Reply} Reply */
/** @typedef {import('./profiles').ServiceProfile} ServiceProfile */
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
	const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
	// Node closes an idle connection after 5 s; a client that reuses it just then (undici's own limit is 4 s,
	// read on a one-second clock that falls behind on a loaded machine) meets "other side closed" on a request
	// the sandbox never saw. The sandbox keeps idle connections 30 s, as a service behind a load
	// balancer does, so that a client ending its idle connections sooner (undici: 4 s) is the one to end them.
	server.keepAliveTimeout = 30_000;
	return server;
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
	const { reply, fault, createdCallId, profile } = await handleApi(
		app,
		method,
		url,
		request.headers.authorization,
		body,
	).finally(() => app.traffic.end());
	const answered = reply && !reply.drop ? reply : null;
	// Logged before answering, so a client that reads the log right after its answer finds its request.
	app.requestLog.push({
		method,
		path: url.pathname,
		query: queryObject(url.searchParams),
		status: answered ? answered.status : null,
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
	if (answered) send(response, profile.outgoing(answered));
	else request.socket.destroy();
}

/**
 * @typedef {object} ApiOutcome
 * @property {Reply | null} reply null: reset the socket (a reply with `drop` closes it too)
 * @property {'error' | 'reset' | null} fault
 * @property {string | number} [createdCallId] the call a request reset after acting created
 * @property {ServiceProfile} profile the profile that answered
 */

/**
 * An API request, in the order a client meets the checks: latency, route outside /v1, auth, route,
 * body (413, 400), rate limit (429), injected faults, then the endpoint itself. The key's profile
 * (profiles.js) runs the endpoint and writes the answers.
 * @param {SandboxApp} app
 * @param {string} method
 * @param {URL} url
 * @param {string | undefined} authorization
 * @param {RequestBody} body
 * @returns {Promise<ApiOutcome>}
 */
async function handleApi(app, method, url, authorization, body) {
	if (app.latencyMs > 0) await app.requestTimers.sleep(app.latencyMs);
	const profile = app.profileFor(authorization);
	/** @type {{ route: string, apiKey: string }} */
	let target;
	try {
		target = resolveTarget(app, profile, method, url.pathname, authorization, body);
	} catch (error) {
		return { reply: profile.checkReply(error), fault: null, profile };
	}
	const { route, apiKey } = target;

	const fault = app.faults.draw(route);
	if (fault && fault.latencyMs > 0) await app.requestTimers.sleep(fault.latencyMs);
	const act = () =>
		answer(() => profile.serve(apiKey, route, url.searchParams, body.json), profile.errorReply);
	if (!fault?.action) return { reply: profile.finish(route, await act()), fault: null, profile };
	// "after": the service acts, then the client sees an error or a dropped connection (an ambiguous failure).
	const acted = fault.when === 'after' ? await act() : undefined;
	const created = acted?.createdCallId ? { createdCallId: acted.createdCallId } : {};
	if (fault.action === 'reset') return { reply: null, fault: 'reset', ...created, profile };
	return { reply: { ...profile.faultReply(route, fault), ...created }, fault: 'error', profile };
}

/**
 * The checks before an endpoint runs; each throws the ApiError a client gets (in the profile's words).
 * @param {SandboxApp} app
 * @param {ServiceProfile} profile
 * @param {string} method
 * @param {string} path
 * @param {string | undefined} authorization
 * @param {RequestBody} body
 * @returns {{ route: string, apiKey: string }}
 */
function resolveTarget(app, profile, method, path, authorization, body) {
	if (path !== '/v1' && !path.startsWith('/v1/')) {
		throw new ApiError(404, `No such endpoint: ${method} ${path}. API paths start with /v1`);
	}
	const apiKey = bearerToken(authorization);
	if (!app.profiles.of(apiKey)) throw new ApiError(401, 'Invalid API key');
	const relativePath = path.slice('/v1'.length);
	const route = `${method} ${relativePath}`;
	if (!app.apiRoutes.has(route)) {
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
	if (body.problem && (profile.checksJsonFirst || body.problem.status !== 400)) throw body.problem;
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
	return { route, apiKey };
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
