/**
 * Stand-in servers on 127.0.0.1 for what the sandbox cannot play: a webhook receiver for the sandbox's
 * events, a service that never ends its pages, a server that is not the service, and an address where
 * nothing listens.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { waitFor } from './wait.cts';

export interface LocalServer {
	/** http://127.0.0.1:PORT */
	origin: string;
	close(): Promise<void>;
}

/** Listens on a free loopback port; closing drops open connections. */
export async function listen(server: http.Server): Promise<LocalServer> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		origin,
		close: () =>
			new Promise<void>((resolve) => {
				if (!server.listening) return resolve();
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** A loopback URL with this path where nothing listens (connection refused). */
export async function closedPortUrl(path: string): Promise<string> {
	const local = await listen(http.createServer());
	await local.close();
	return `${local.origin}${path}`;
}

/** A server that is not the service (a website, n8n itself): every request gets the same answer. */
export async function startAnsweringServer(
	status: number,
	contentType: string,
	body: string,
): Promise<LocalServer> {
	return await listen(
		http.createServer((_request, response) => {
			response.writeHead(status, { 'content-type': contentType });
			response.end(body);
		}),
	);
}

/** A stand-in service whose GET /v1/calls always answers one call and the same cursor. */
export async function startRepeatingCursorServer(): Promise<LocalServer & { requests: string[] }> {
	const requests: string[] = [];
	let served = 0;
	const server = http.createServer((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		served++;
		const body = JSON.stringify({
			num_items: 1,
			cursor: 'c_same',
			calls: [
				{
					id: `call_${served}`,
					agent_id: 'agt_1',
					client_number: '+14155550123',
					context: '',
					status: 'completed',
					created_at: '2026-01-01T00:00:00.000Z',
				},
			],
		});
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(body);
	});
	const local = await listen(server);
	return { ...local, requests };
}

/**
 * A service whose cursor is a time, as the live service's, that serves the same page whatever it is
 * asked: the given live call rows (`{ id, created_at }`), and the second of the last one as the cursor.
 */
export async function startSamePageServer(
	rows: { id: number; created_at: string }[],
): Promise<LocalServer & { requests: string[] }> {
	const requests: string[] = [];
	const server = http.createServer((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		const calls = rows.map((row) => ({
			agent_id: 101,
			client_number: '+14155550123',
			in_progress: false,
			started_at: row.created_at,
			ended_at: row.created_at,
			...row,
		}));
		const cursor = `${rows[rows.length - 1].created_at.slice(0, 19)}Z`;
		response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
		response.end(`${JSON.stringify({ num_items: calls.length, cursor, calls })}\n`);
	});
	const local = await listen(server);
	return { ...local, requests };
}

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: any;
}

/** An HTTP server that stands in for a webhook receiver and records what it received. */
export interface WebhookReceiver {
	/** http://127.0.0.1:PORT */
	url: string;
	received: ReceivedRequest[];
	/** Status codes of the next answers, in order; after them it answers `defaultStatus`. */
	statuses: number[];
	defaultStatus: number;
	responseBody: string;
	/** Resolves with the requests once at least `count` arrived. */
	waitForCount(count: number): Promise<ReceivedRequest[]>;
	close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			receiver.received.push({
				method: request.method ?? '',
				url: request.url ?? '',
				headers: request.headers,
				// A live key's retry may carry no body at all.
				body: text === '' ? null : JSON.parse(text),
			});
			response.statusCode = receiver.statuses.shift() ?? receiver.defaultStatus;
			response.end(receiver.responseBody);
		});
	});
	const local = await listen(server);
	const receiver: WebhookReceiver = {
		url: local.origin,
		received: [],
		statuses: [],
		defaultStatus: 200,
		responseBody: 'ok',
		waitForCount: (count) =>
			waitFor(`${count} webhook requests`, () =>
				receiver.received.length >= count ? receiver.received : undefined,
			),
		close: local.close,
	};
	return receiver;
}

/**
 * Sends the request on to `target` and pipes the answer back (with `extraHeaders`); `done` runs once the
 * answer ended or the request failed.
 */
export function forward(
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

/** A server standing for another origin: it records every request and answers 200 with an agent list. */
export interface RecordingServer extends LocalServer {
	/** "METHOD /path?query" of every request it received. */
	requests: string[];

	/** The Authorization headers it received (none must arrive). */
	authorizations: string[];
}

export async function startRecordingServer(): Promise<RecordingServer> {
	const requests: string[] = [];
	const authorizations: string[] = [];
	const local = await listen(
		http.createServer((request, response) => {
			requests.push(`${request.method} ${request.url}`);
			if (request.headers.authorization) authorizations.push(request.headers.authorization);
			request.resume();
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ agents: [], num_items: 0, cursor: null }));
		}),
	);
	return { ...local, requests, authorizations };
}

/**
 * A Base URL whose server answers requests with a redirect (`status`) to `location`: every request, or
 * with `only` those of one method, the others passed on to `passTo` (e.g. the sandbox's origin).
 */
export async function startRedirectingServer(
	status: number,
	location: string,
	{ only, passTo }: { only?: string; passTo?: string } = {},
): Promise<LocalServer & { requests: string[] }> {
	const requests: string[] = [];
	const local = await listen(
		http.createServer((request, response) => {
			requests.push(`${request.method} ${request.url}`);
			if (only !== undefined && passTo !== undefined && request.method !== only) {
				forward(request, response, new URL(passTo));
				return;
			}
			request.resume();
			response.writeHead(status, { location, 'content-type': 'text/plain' });
			response.end('Moved');
		}),
	);
	return { ...local, requests };
}
