/**
 * Proxies in front of the sandbox, for what a node test must see between the node and the service: how
 * many requests are in flight at once, or the service going away in the middle of a run.
 */
import * as http from 'node:http';

import { forSuite } from './lifecycle.cts';
import type { TestSandbox } from './sandbox.cts';
import { forward, listen, type LocalServer } from './servers.cts';

/** "METHOD /path" of a request, the path relative to /v1 (e.g. "GET /calls"). */
function routeOf(request: http.IncomingMessage): string {
	const { pathname } = new URL(request.url ?? '/', 'http://proxy.invalid');
	return `${request.method} ${pathname.replace(/^\/v1/, '')}`;
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

/** What an intercepting proxy does with one request instead of passing it through untouched. */
export type Interception =
	/** Answers the request itself: the service never sees it. */
	| { answer: { status: number; body: unknown } }
	/** Forwards it, then passes the JSON answer through `rewrite`. */
	| { rewrite: (body: any) => unknown };

export interface InterceptingProxy extends LocalServer {
	/** "METHOD /path" of every request it received, in order. */
	routes: string[];
}

/**
 * Forwards requests to `target` except where `intercept` (given the route, the routes before it and the
 * request's URL) returns an interception: for what the sandbox never does by itself, such as failing
 * one endpoint only after another was called, listing two agents of one name, or failing one call.
 */
export async function startInterceptingProxy(
	target: string,
	intercept: (route: string, earlier: readonly string[], url: URL) => Interception | undefined,
): Promise<InterceptingProxy> {
	const targetUrl = new URL(target);
	const routes: string[] = [];
	const server = http.createServer((request, response) => {
		const route = routeOf(request);
		const url = new URL(request.url ?? '/', 'http://proxy.invalid');
		const interception = intercept(route, [...routes], url);
		routes.push(route);
		if (!interception) return forward(request, response, targetUrl);
		if ('answer' in interception) {
			request.resume();
			response.writeHead(interception.answer.status, { 'content-type': 'application/json' });
			response.end(JSON.stringify(interception.answer.body));
			return;
		}
		const upstream = http.request(
			{
				host: targetUrl.hostname,
				port: targetUrl.port,
				method: request.method,
				path: request.url,
				headers: request.headers,
			},
			async (answer) => {
				const chunks: Buffer[] = [];
				for await (const chunk of answer) chunks.push(chunk as Buffer);
				const body = JSON.stringify(
					interception.rewrite(JSON.parse(Buffer.concat(chunks).toString())),
				);
				response.writeHead(answer.statusCode ?? 502, {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(body),
				});
				response.end(body);
			},
		);
		upstream.on('error', () => response.destroy());
		request.pipe(upstream);
	});
	return { ...(await listen(server)), routes };
}
