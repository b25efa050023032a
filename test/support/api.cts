/**
 * The API requests tests make to set up and read the sandbox's state, and its request log. A helper that
 * sets up or reads fails the test with the service's answer when it is not a 200. `key` acts as another
 * account of the sandbox (its first API key by default).
 */
import type { HttpResult, RecordedRequest, TestSandbox } from './sandbox.cts';

type Fields = Record<string, unknown>;

function okBody({ status, body }: HttpResult): any {
	expect({ status, body }).toMatchObject({ status: 200 });
	return body;
}

/** POST /agent with exactly these fields: creates the agent, or updates the one of that name. */
export async function upsertAgent(
	sandbox: TestSandbox,
	fields: Fields,
	key?: string,
): Promise<any> {
	return okBody(await sandbox.api('POST', '/agent', { key, body: fields }));
}

/** Creates an agent (a random name and area code 415 unless given) and returns it. */
export function createAgent(sandbox: TestSandbox, fields: Fields = {}, key?: string): Promise<any> {
	const name = `Agent ${Math.random().toString(36).slice(2, 8)}`;
	return upsertAgent(sandbox, { name, area_code: '415', ...fields }, key);
}

/** The agent as the API answers it now, or undefined when it does not exist. */
export async function getAgent(sandbox: TestSandbox, id: string, key?: string): Promise<any> {
	const result = await sandbox.api('GET', '/agent', { key, query: { id } });
	return result.status === 404 ? undefined : okBody(result);
}

/**
 * Places a call from the agent's number (to +14155550123 with a context unless given) and returns it.
 * Returns once the clock has passed its `created_at`, so calls placed one after another are listed in that
 * order (calls of the same millisecond are listed by ID).
 */
export async function placeCall(
	sandbox: TestSandbox,
	agent: { phone_number: string },
	fields: Fields = {},
	key?: string,
): Promise<any> {
	const body = { from: agent.phone_number, to: '+14155550123', context: 'Test call', ...fields };
	const call = okBody(await sandbox.api('POST', '/call', { key, body }));
	const createdMs = Date.parse(call.created_at);
	while (Date.now() <= createdMs) await new Promise((resolve) => setTimeout(resolve, 1));
	return call;
}

/** The call as the API answers it now. */
export async function getCall(sandbox: TestSandbox, id: string, key?: string): Promise<any> {
	return okBody(await sandbox.api('GET', '/call', { key, query: { id } }));
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

/** Every call of the account, newest first, read in pages of 100. */
export function allCalls(
	sandbox: TestSandbox,
	query: Record<string, string> = {},
	key?: string,
): Promise<any[]> {
	return listAll(sandbox, 'calls', { limit: 100, ...query }, key);
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

/** POST /call answered 2xx, per number: how many times each was phoned. */
export async function dialsByNumber(sandbox: TestSandbox): Promise<Record<string, number>> {
	const counts: Record<string, number> = {};
	for (const request of await wire(sandbox)) {
		if (request.method !== 'POST' || request.path !== '/call') continue;
		if (request.status === null || request.status < 200 || request.status >= 300) continue;
		const to = (request.body as { to: string }).to;
		counts[to] = (counts[to] ?? 0) + 1;
	}
	return counts;
}

/** "METHOD /path status" of each request, the compact form for order assertions. */
export async function wireLines(sandbox: TestSandbox): Promise<string[]> {
	return (await wire(sandbox)).map(
		(request) => `${request.method} ${request.path} ${request.status}`,
	);
}

/** GET /agents requests of the run: how many times the agent list was read. */
export async function agentListReads(sandbox: TestSandbox): Promise<number> {
	return (await wireLines(sandbox)).filter((line) => line.startsWith('GET /agents ')).length;
}

/** Ends a call in progress now (the sandbox's control endpoint), as `completed` unless given (any end status). */
export async function endCall(
	sandbox: TestSandbox,
	id: string,
	status = 'completed',
): Promise<any> {
	return okBody(await sandbox.control('POST', `/calls/${id}/complete`, { status }));
}

/** The newest `count` calls of the account, newest first. */
export async function latestCalls(sandbox: TestSandbox, count: number, key?: string) {
	const calls: any[] = [];
	let cursor: string | undefined;
	while (calls.length < count) {
		const limit = Math.min(100, count - calls.length);
		const body = okBody(await sandbox.api('GET', '/calls', { key, query: { limit, cursor } }));
		calls.push(...body.calls);
		if (!body.cursor) break;
		cursor = body.cursor;
	}
	return calls;
}

/**
 * `count` calls newer than every call so far that have ended by the time it returns: seeded live (the
 * sandbox's seeded history lies in the past), lasting 1 ms. Newest first.
 */
export async function newEndedCalls(sandbox: TestSandbox, count: number, key?: string) {
	await sandbox.seed({ live_calls: count, call_duration_ms: 1, api_key: key });
	for (let attempt = 0; attempt < 500; attempt++) {
		const calls = await latestCalls(sandbox, count, key);
		if (calls.every((call) => call.status !== 'in_progress')) return calls;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	throw new Error(`the ${count} seeded calls did not end`);
}

/** How many times POST /call reached the sandbox since its requests were last cleared: each one a dial. */
export async function callsPosted(sandbox: TestSandbox): Promise<number> {
	return (await wireLines(sandbox)).filter((line) => line.startsWith('POST /call ')).length;
}
