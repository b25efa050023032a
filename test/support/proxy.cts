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
	| { answer: { status: number; body: unknown; headers?: Record<string, string> } }
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
 * `intercept` may hold a request (return a promise) until another one arrived.
 */
export async function startInterceptingProxy(
	target: string,
	intercept: (
		route: string,
		earlier: readonly string[],
		url: URL,
	) => Interception | undefined | Promise<Interception | undefined>,
): Promise<InterceptingProxy> {
	const targetUrl = new URL(target);
	const routes: string[] = [];
	const server = http.createServer(async (request, response) => {
		const route = routeOf(request);
		const url = new URL(request.url ?? '/', 'http://proxy.invalid');
		const earlier = [...routes];
		routes.push(route);
		const interception = await intercept(route, earlier, url);
		if (!interception) return forward(request, response, targetUrl);
		if ('answer' in interception) {
			request.resume();
			response.writeHead(interception.answer.status, {
				...interception.answer.headers,
				'content-type': 'application/json',
			});
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

/** What orders the requests a scheduling proxy holds: fast-check's scheduler in a property's run. */
interface Scheduler {
	schedule<T>(task: Promise<T>, label?: string): Promise<T>;
}

/** A proxy whose passing requests and answers a property's scheduler lets through in the order it draws. */
export interface SchedulingProxy extends LocalServer {
	/** The scheduler of the run now (none: requests pass as they come). */
	use(scheduler: Scheduler | undefined): void;
}

export interface SchedulingProxyOptions {
	/**
	 * Adds `sent_at` (the clock, in ms, when the node's POST /call reached the proxy) to its query, which the
	 * sandbox keeps in its request log: when the node sent a call, however long the scheduler held it.
	 */
	stampCalls?: boolean;
}

/**
 * Holds every request before it reaches the service and every answer before it reaches the node until
 * the run's scheduler releases it, so a property explores the orders in which concurrent requests
 * arrive and their answers come back, over real HTTP to the real sandbox.
 */
export async function startSchedulingProxy(
	target: string,
	{ stampCalls = false }: SchedulingProxyOptions = {},
): Promise<SchedulingProxy> {
	let scheduler: Scheduler | undefined;
	const server = http.createServer(async (request, response) => {
		const route = routeOf(request);
		const url = new URL(request.url ?? '/', target);
		if (stampCalls && route === 'POST /call') url.searchParams.set('sent_at', String(Date.now()));
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const hold = async (label: string) => {
			if (scheduler) await scheduler.schedule(Promise.resolve(), label);
		};
		try {
			await hold(`→ ${route}`);
			const headers = { ...request.headers } as Record<string, string>;
			delete headers.host;
			const answer = await fetch(url, {
				method: request.method,
				headers,
				body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
			});
			const body = Buffer.from(await answer.arrayBuffer());
			await hold(`← ${route} ${answer.status}`);
			const passed: Record<string, string> = {};
			answer.headers.forEach((value, name) => {
				if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
					passed[name] = value;
			});
			// The service's Date header (or its absence) passes through as it came.
			response.sendDate = false;
			response.writeHead(answer.status, { ...passed, 'content-length': body.length });
			response.end(body);
		} catch {
			response.destroy();
		}
	});
	const local = await listen(server);
	return { ...local, use: (next) => (scheduler = next) };
}

/** The suite's scheduling proxy in front of its sandbox; no scheduler until a run sets one. */
export function useSchedulingProxy(
	sandbox: TestSandbox,
	options: SchedulingProxyOptions = {},
): SchedulingProxy {
	return forSuite({
		name: 'The scheduling proxy',
		start: () => startSchedulingProxy(sandbox.origin, options),
		close: (proxy) => proxy.close(),
		reset: (proxy) => proxy.use(undefined),
	});
}
