/**
 * Suites that run against both services the sandbox plays (`describe.each(PROFILES)`): the documented one
 * and the live one (sandbox/README.md, "The live profile"). What a test sets up or expects differs between
 * them, so it goes through these helpers. What the nodes output for a live row is restated here from the
 * live service's rules (docs/service.md), apart from the nodes' decoder, so a decoder that drifts fails.
 */
import { placeCall } from './api.cts';
import type { SeedRequest, TestSandbox } from './sandbox.cts';
import { waitFor } from './wait.cts';

export type Profile = 'documented' | 'live';

export const PROFILES: readonly Profile[] = ['documented', 'live'];

/** Go's zero time: what the live service writes for a time a call does not have yet. */
const ZERO_TIME = /^0001-01-01T00:00:00(?:\.0+)?Z$/;

/** A live call that has not connected for this long (by the service's clock) is `not_connected`. */
export const NEVER_CONNECTED_AFTER_MS = 10 * 60_000;

/**
 * Every call of the account, newest first, as the service answers them. The live service's pages lose calls
 * at their seams, so its list is read in one page (it has no maximum page size).
 */
export async function everyCall(
	sandbox: TestSandbox,
	profile: Profile,
	query: Record<string, string> = {},
	key?: string,
): Promise<any[]> {
	const limit = profile === 'live' ? 1_000_000 : 100;
	const calls: any[] = [];
	let cursor: string | undefined;
	for (;;) {
		const { status, body } = await sandbox.api('GET', '/calls', {
			key,
			query: { ...query, limit, cursor },
		});
		expect(status).toBe(200);
		calls.push(...body.calls);
		if (!body.cursor || profile === 'live') return calls;
		cursor = body.cursor;
	}
}

/** A speaker of the documented transcript, for a role of the live one. */
const SPEAKER: Record<string, string> = { assistant: 'agent', user: 'customer' };

/**
 * A call as the nodes output it, from the row the service answered: the documented row as it is; a live
 * row with its ids (its own, its agent's and its user's) as text, `status` (`completed` once it has an end time, `in_progress` while connected,
 * `ringing` before, `not_connected` once it has rung for 10 minutes by `serviceNowMs`), `to` from a
 * non-empty `client_number`, `duration` from `time_seconds` once ended, zero times as null and the chat
 * transcript as turns without its system message.
 */
export function asOutput(row: any, profile: Profile, serviceNowMs = Date.now()): any {
	if (profile === 'documented') return row;
	const ended = typeof row.ended_at === 'string' && !ZERO_TIME.test(row.ended_at);
	const rangMs = serviceNowMs - Date.parse(row.created_at);
	const status = ended
		? 'completed'
		: row.in_progress
			? 'in_progress'
			: rangMs >= NEVER_CONNECTED_AFTER_MS
				? 'not_connected'
				: 'ringing';
	const output: any = {
		...row,
		id: String(row.id),
		agent_id: String(row.agent_id),
		user_id: String(row.user_id),
		status,
		ended_at: ended ? row.ended_at : null,
		started_at: ZERO_TIME.test(row.started_at) ? null : row.started_at,
		duration: ended ? row.time_seconds : null,
	};
	if (row.client_number !== '') output.to = row.client_number;
	if (Array.isArray(row.transcript))
		output.transcript = row.transcript
			.filter((message: any) => message.role !== 'system')
			.map((message: any) => ({ speaker: SPEAKER[message.role], text: message.content }));
	return output;
}

/** The system messages of a live row's transcript (the agent's prompt and the call's context). */
export function systemMessagesOfRow(row: any): string[] {
	return (row.transcript ?? [])
		.filter((message: any) => message.role === 'system')
		.map((message: any) => message.content);
}

/** An id as the nodes take and output it: text. */
export const textId = (id: unknown) => String(id);

/**
 * A call in progress: placed from the agent's number (a live call rings until it connects: connected
 * here), as the service answers it now.
 */
export async function callInProgress(
	sandbox: TestSandbox,
	profile: Profile,
	agent: { phone_number: string },
	fields: Record<string, unknown> = {},
): Promise<any> {
	const call = await placeCall(sandbox, agent, fields);
	if (profile === 'documented') return call;
	const connected = await sandbox.control('POST', `/calls/${call.id}/connect`);
	expect(connected.status).toBe(200);
	return connected.body;
}

/**
 * Ends a call now, as the service answers it afterwards: documented with `completed`, or the end status
 * given; live with the customer hanging up (a live call has no end status: `completed` once it ended).
 */
export async function endCallOf(
	sandbox: TestSandbox,
	profile: Profile,
	id: unknown,
	status = 'completed',
): Promise<any> {
	const body = profile === 'documented' ? { status } : {};
	const ended = await sandbox.control('POST', `/calls/${id}/complete`, body);
	expect(ended.status).toBe(200);
	return ended.body;
}

/** Whether a row of either service says the call ended. */
function rowEnded(row: any): boolean {
	if (typeof row.status === 'string') return row.status !== 'in_progress';
	return typeof row.ended_at === 'string' && !ZERO_TIME.test(row.ended_at);
}

/**
 * `count` calls newer than every call so far that have ended by the time it returns: seeded live (the
 * seeded history lies in the past), lasting 1 ms. Newest first, as the service answers them.
 */
export async function newEndedCallsOf(
	sandbox: TestSandbox,
	profile: Profile,
	count: number,
	key?: string,
): Promise<any[]> {
	await sandbox.seed({ live_calls: count, call_duration_ms: 1, api_key: key });
	for (let attempt = 0; attempt < 500; attempt++) {
		const calls = (await everyCall(sandbox, profile, {}, key)).slice(0, count);
		if (calls.every(rowEnded)) return calls;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	throw new Error(`the ${count} seeded calls did not end`);
}

/**
 * Seeds the account. The live seed's ended history lies ten minutes back or more (unless the account's
 * agents are newer), and some of it never connected: this waits until the service's clock (its Date
 * header, whole seconds) reads every such call as `not_connected`, so none of them is `ringing` when the
 * test starts.
 */
export async function seedCalls(
	sandbox: TestSandbox,
	profile: Profile,
	request: SeedRequest,
): Promise<void> {
	const seededAt = Date.now();
	await sandbox.seed(request);
	if (profile === 'documented') return;
	await waitFor('the seeded calls that never connected to read as not connected', async () => {
		const answer = await sandbox.api('GET', '/calls', {
			key: request.api_key,
			query: { limit: 1_000_000 },
		});
		const serviceNowMs = Date.parse(answer.headers.get('date') ?? '');
		const rows: any[] = answer.body.calls;
		const ringing = rows.filter(
			(row) =>
				Date.parse(row.created_at) <= seededAt - NEVER_CONNECTED_AFTER_MS &&
				asOutput(row, profile, serviceNowMs).status === 'ringing',
		);
		return ringing.length === 0 ? true : undefined;
	});
}
