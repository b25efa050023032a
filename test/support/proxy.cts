/**
 * Proxies in front of the sandbox, for what a node test must see between the node and the service: how
 * many requests are in flight at once, or the service going away in the middle of a run.
 */
import * as http from 'node:http';

import { forSuite } from './lifecycle.cts';
import type { TestSandbox } from './sandbox.cts';
import { listen, type LocalServer } from './servers.cts';

/** "METHOD /path" of a request, the path relative to /v1 (e.g. "GET /calls"). */
function routeOf(request: http.IncomingMessage): string {
	const { pathname } = new URL(request.url ?? '/', 'http://proxy.invalid');
	return `${request.method} ${pathname.replace(/^\/v1/, '')}`;
}

/**
 * Sends the request on to `target` and pipes the answer back (with `extraHeaders`); `done` runs once the
 * answer ended or the request failed.
 */
function forward(
	request: http.IncomingMessage,
	response: http.ServerResponse,
	target: URL,
	extraHeaders: http.OutgoingHttpHeaders = {},
	done: () => void = () => {},
): void {
	const upstream = http.request(
		{
			host: target.hostname,
			port: target.port,
			method: request.method,
			path: request.url,
			headers: request.headers,
		},
		(answer) => {
			response.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...extraHeaders });
			answer.pipe(response);
			answer.on('end', done);
		},
	);
	upstream.on('error', () => {
		done();
		response.destroy();
	});
	request.pipe(upstream);
}

/** A proxy in front of the sandbox that counts, per "METHOD /path", how many requests are in flight at once. */
export interface CountingProxy extends LocalServer {
	/** The most requests to the route that were in flight at the same time. */
	maxInFlight(route: string): number;
	resetCounts(): void;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
	const inFlight = new Map<string, number>();
	const max = new Map<string, number>();
	const targetUrl = new URL(target);
	const server = http.createServer((request, response) => {
		const route = routeOf(request);
		const now = (inFlight.get(route) ?? 0) + 1;
		inFlight.set(route, now);
		max.set(route, Math.max(max.get(route) ?? 0, now));
		let done = false;
		forward(request, response, targetUrl, {}, () => {
			if (done) return;
			done = true;
			inFlight.set(route, (inFlight.get(route) ?? 1) - 1);
		});
	});
	const local = await listen(server);
	return {
		...local,
		maxInFlight: (route) => max.get(route) ?? 0,
		resetCounts: () => {
			inFlight.clear();
			max.clear();
		},
	};
}

/** The suite's counting proxy in front of its sandbox: counts start afresh for each test. */
export function useCountingProxy(sandbox: TestSandbox): CountingProxy {
	return forSuite({
		name: 'The counting proxy',
		start: () => startCountingProxy(sandbox.origin),
		close: (proxy) => proxy.close(),
		reset: (proxy) => proxy.resetCounts(),
	});
}

/**
 * Forwards requests to `target` until one to `closeAfter` ("METHOD /path", relative to /v1) was answered,
 * then stops listening: the next request meets a closed port.
 */
export async function startOneShotProxy(target: string, closeAfter: string): Promise<LocalServer> {
	const targetUrl = new URL(target);
	const server = http.createServer((request, response) => {
		forward(request, response, targetUrl, { connection: 'close' });
		response.on('finish', () => {
			if (routeOf(request) === closeAfter) {
				server.close();
				server.closeAllConnections();
			}
		});
	});
	return await listen(server);
}

/**
 * A proxy in front of the sandbox that answers some requests itself, with an error the service could
 * give: `failWith(route, url)` returns a status for a request to fail (its body is the service's error
 * shape), or undefined to forward it. E.g. one call whose GET /call always fails.
 */
export interface FailingProxy extends LocalServer {
	/** Replaces the rule; `() => undefined` forwards everything. */
	setRule(failWith: (route: string, url: URL) => number | undefined): void;
}

export async function startFailingProxy(target: string): Promise<FailingProxy> {
	const targetUrl = new URL(target);
	let failWith: (route: string, url: URL) => number | undefined = () => undefined;
	const server = http.createServer((request, response) => {
		const status = failWith(routeOf(request), new URL(request.url ?? '/', 'http://proxy.invalid'));
		if (status === undefined) {
			forward(request, response, targetUrl);
			return;
		}
		request.resume();
		response.writeHead(status, { 'content-type': 'application/json' });
		response.end(
			JSON.stringify({
				error: http.STATUS_CODES[status] ?? 'Error',
				message: `Failed by the test proxy (${status})`,
			}),
		);
	});
	const local = await listen(server);
	return {
		...local,
		setRule: (rule) => {
			failWith = rule;
		},
	};
}

/** The suite's failing proxy in front of its sandbox: forwarding everything again before each test. */
export function useFailingProxy(sandbox: TestSandbox): FailingProxy {
	return forSuite({
		name: 'The failing proxy',
		start: () => startFailingProxy(sandbox.origin),
		close: (proxy) => proxy.close(),
		reset: (proxy) => proxy.setRule(() => undefined),
	});
}
