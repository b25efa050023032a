/** Helpers shared by the sandbox conformance suite. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestSandbox } from '../support/sandbox.cts';
import { waitFor } from '../support/wait.cts';

export { sleep, waitFor } from '../support/wait.cts';

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The fields of an agent in GET /agents (docs/service.md, "Agent answers"), sorted. */
export const AGENT_LIST_FIELDS = [
	'id',
	'name',
	'phone_number',
	'system_prompt',
	'initial_message',
	'llm_model',
	'voice_id',
	'webhook',
	'tools',
	'filler_words',
	'filler_words_whitelist',
	'created_at',
	'updated_at',
].sort();

/** An agent as POST /agent and GET /agent answer it: the list fields and the other settings, sorted. */
export const AGENT_FIELDS = [
	...AGENT_LIST_FIELDS,
	'actions',
	'voicemail_number',
	'chunking',
	'endpointing',
	'voice_optimization',
	'smart_endpointing_threshold',
	'language',
	'compliance_checks',
].sort();

export const CALL_FIELDS = [
	'id',
	'agent_id',
	'from',
	'to',
	'context',
	'status',
	'created_at',
	'ended_at',
	'duration',
	'transcript',
].sort();
export const CALL_LIST_FIELDS = [
	'id',
	'agent_id',
	'client_number',
	'context',
	'status',
	'created_at',
].sort();
export const CALL_CONTEXT_FIELDS = [
	'id',
	'agent_id',
	'from',
	'to',
	'context',
	'status',
	'created_at',
	'updated_at',
].sort();

/** Creates an agent (area code 415 unless given) and returns it; fails the test on a non-200. */
export async function createAgent(
	sandbox: TestSandbox,
	fields: Record<string, unknown> = {},
	key?: string,
) {
	const { status, body } = await sandbox.api('POST', '/agent', {
		key,
		body: { name: `Agent ${Math.random().toString(36).slice(2, 8)}`, area_code: '415', ...fields },
	});
	expect({ status, body }).toMatchObject({ status: 200 });
	return body;
}

/** Places a call from the agent's number and returns it; fails the test on a non-200. */
export async function placeCall(
	sandbox: TestSandbox,
	agent: { phone_number: string },
	fields: Record<string, unknown> = {},
	key?: string,
) {
	const { status, body } = await sandbox.api('POST', '/call', {
		key,
		body: { from: agent.phone_number, to: '+14155550123', context: 'Test call', ...fields },
	});
	expect({ status, body }).toMatchObject({ status: 200 });
	return body;
}

/** Every item of a list, following cursors until the last page; checks each page's num_items. */
export async function listAll(
	sandbox: TestSandbox,
	list: 'agents' | 'calls',
	query: Record<string, string | number> = {},
	key?: string,
): Promise<any[]> {
	const items: any[] = [];
	let cursor: string | undefined;
	for (let page = 0; page < 10_000; page++) {
		const { status, body } = await sandbox.api('GET', `/${list}`, {
			key,
			query: { ...query, cursor },
		});
		expect(status).toBe(200);
		expect(body.num_items).toBe(body[list].length);
		items.push(...body[list]);
		if (!body.cursor) return items;
		cursor = body.cursor;
	}
	throw new Error('the list did not end');
}

/** Newest first: created_at descending, id descending on equal times. */
export function compareNewestFirst(
	a: { created_at: string; id: string },
	b: { created_at: string; id: string },
): number {
	if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
	return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: any;
}

/** An HTTP server on 127.0.0.1 that stands in for a webhook receiver. */
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
	const receiver: WebhookReceiver = {
		url: '',
		received: [],
		statuses: [],
		defaultStatus: 200,
		responseBody: 'ok',
		waitForCount: (count) =>
			waitFor(`${count} webhook requests`, () =>
				receiver.received.length >= count ? receiver.received : undefined,
			),
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			receiver.received.push({
				method: request.method ?? '',
				url: request.url ?? '',
				headers: request.headers,
				body: JSON.parse(text),
			});
			response.statusCode = receiver.statuses.shift() ?? receiver.defaultStatus;
			response.end(receiver.responseBody);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return receiver;
}

/** A loopback URL where nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
	const server = http.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}/hook`;
}

/** GET a sandbox URL directly (for sandboxes started without the test helper); the parsed JSON body. */
export async function getJson(url: string, key = 'sandbox-key'): Promise<any> {
	const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
	return response.json();
}
