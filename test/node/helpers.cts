/**
 * Helpers of the Voice Agent node's engine suite: runs the built node in n8n's real WorkflowExecute
 * against a test sandbox, and reads what went over the wire from the sandbox's request log.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';

import { runNode, type NodeRun } from '../support/n8n.cts';
import type { RecordedRequest, TestSandbox } from '../support/sandbox.cts';
export { sleep, waitFor } from '../support/wait.cts';

/** A distinctive API key, so a test can prove it never shows up in an error. */
export const API_KEY = 'va_test_key_7Qm2xKp9RzW4';

export function rl(value: string, mode: 'id' | 'list' | 'phoneNumber' = 'id') {
	return { __rl: true, mode, value };
}

export interface RunOptions {
	input?: Record<string, unknown>[];
	continueOnFail?: boolean;
	/** Overrides the credential (e.g. a wrong key, or a Base URL where nothing listens). */
	apiKey?: string;
	baseUrl?: string;
}

/** Runs the Voice Agent node with the sandbox's credential. */
export function runWith(
	sandbox: TestSandbox,
	parameters: INodeParameters,
	options: RunOptions = {},
): Promise<NodeRun> {
	return runNode({
		parameters,
		credentials: {
			apiKey: options.apiKey ?? sandbox.apiKey,
			baseUrl: options.baseUrl ?? sandbox.baseUrl,
		},
		input: options.input as NodeRun['items'][number]['json'][] | undefined,
		continueOnFail: options.continueOnFail,
	});
}

/** The items' JSON, failing the test with the node's error when the run failed. */
export function jsonOf(run: NodeRun): any[] {
	if (run.error)
		throw new Error(`The node failed: ${run.error.message} (${run.error.description ?? ''})`);
	return run.items.map((item) => item.json);
}

export interface WireRequest {
	method: string;
	/** Relative to /v1, e.g. "/calls". */
	path: string;
	query: Record<string, string | string[]>;
	body: unknown;
	status: number | null;
}

/** The API requests the sandbox received (control requests are not logged), oldest first. */
export async function wire(sandbox: TestSandbox): Promise<WireRequest[]> {
	return (await sandbox.requests()).map((request: RecordedRequest) => ({
		method: request.method,
		path: request.path.replace(/^\/v1/, ''),
		query: request.query,
		body: request.body,
		status: request.status,
	}));
}

/** "METHOD /path status" of each request, the compact form for order assertions. */
export async function wireLines(sandbox: TestSandbox): Promise<string[]> {
	return (await wire(sandbox)).map(
		(request) => `${request.method} ${request.path} ${request.status}`,
	);
}

/** Creates an agent through the API (area code 415 unless given); fails the test on a non-200. */
export async function createAgent(
	sandbox: TestSandbox,
	fields: Record<string, unknown> = {},
): Promise<any> {
	const { status, body } = await sandbox.api('POST', '/agent', {
		body: { name: `Agent ${Math.random().toString(36).slice(2, 8)}`, area_code: '415', ...fields },
	});
	expect({ status, body }).toMatchObject({ status: 200 });
	return body;
}

/** Places a call through the API; fails the test on a non-200. */
export async function placeCall(
	sandbox: TestSandbox,
	agent: { phone_number: string },
	fields: Record<string, unknown> = {},
): Promise<any> {
	const { status, body } = await sandbox.api('POST', '/call', {
		body: { from: agent.phone_number, to: '+14155550123', context: 'Test call', ...fields },
	});
	expect({ status, body }).toMatchObject({ status: 200 });
	return body;
}

/** Every call of the account through the API, newest first. */
export async function allCalls(
	sandbox: TestSandbox,
	query: Record<string, string> = {},
): Promise<any[]> {
	const calls: any[] = [];
	let cursor: string | undefined;
	do {
		const { status, body } = await sandbox.api('GET', '/calls', {
			query: { ...query, limit: 100, cursor },
		});
		expect(status).toBe(200);
		calls.push(...body.calls);
		cursor = body.cursor || undefined;
	} while (cursor);
	return calls;
}

/** Everything an error carries, as text: message, description, stack and the whole object (context, cause...). */
export function serializeError(error: unknown): string {
	const parts: string[] = [];
	const seen = new Set<unknown>();
	let current: unknown = error;
	for (
		let depth = 0;
		depth < 6 && current && typeof current === 'object' && !seen.has(current);
		depth++
	) {
		seen.add(current);
		const record = current as Record<string, unknown>;
		parts.push(String(record.message), String(record.description), String(record.stack));
		parts.push(safeStringify(current));
		for (const key of Object.getOwnPropertyNames(current))
			parts.push(`${key}=${safeStringify(record[key])}`);
		current = record.cause;
	}
	return parts.join('\n');
}

function safeStringify(value: unknown): string {
	const seen = new WeakSet<object>();
	try {
		return (
			JSON.stringify(value, (_key, inner: unknown) => {
				if (inner && typeof inner === 'object') {
					if (seen.has(inner)) return '[circular]';
					seen.add(inner);
				}
				return inner;
			}) ?? String(value)
		);
	} catch (error) {
		return `unserializable: ${(error as Error).message}`;
	}
}

export interface LocalServer {
	/** http://127.0.0.1:PORT */
	origin: string;
	close(): Promise<void>;
}

async function listen(server: http.Server): Promise<LocalServer> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		origin,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
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
		const route = `${request.method} ${new URL(request.url ?? '/', 'http://proxy.invalid').pathname.replace(/^\/v1/, '')}`;
		const now = (inFlight.get(route) ?? 0) + 1;
		inFlight.set(route, now);
		max.set(route, Math.max(max.get(route) ?? 0, now));
		let done = false;
		const finish = () => {
			if (done) return;
			done = true;
			inFlight.set(route, (inFlight.get(route) ?? 1) - 1);
		};
		const upstream = http.request(
			{
				host: targetUrl.hostname,
				port: targetUrl.port,
				method: request.method,
				path: request.url,
				headers: request.headers,
			},
			(answer) => {
				response.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(response);
				answer.on('end', finish);
			},
		);
		upstream.on('error', () => {
			finish();
			response.destroy();
		});
		request.pipe(upstream);
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

/** A loopback Base URL where nothing listens (connection refused). */
export async function closedPortBaseUrl(): Promise<string> {
	const server = http.createServer();
	const local = await listen(server);
	await local.close();
	return `${local.origin}/v1`;
}
