/**
 * Helpers of the live profile's suites. The field lists restate the live service's rows on purpose,
 * independent of the sandbox's own, so a field the sandbox drops or adds fails a test.
 */
import * as http from 'node:http';

import type { HttpResult, TestSandbox } from '../support/sandbox.cts';
import { listen } from '../support/servers.cts';
import { waitFor } from '../support/wait.cts';

/** The columns of every live row. */
const ROW_FIELDS = ['id', 'created_at', 'updated_at', 'deleted_at', 'user_id'];

/** A call row of the live service, sorted: no status, from, to or duration. */
export const LIVE_CALL_FIELDS = [
	...ROW_FIELDS,
	'agent_id',
	'twilio_sid',
	'recording_sid',
	'client_number',
	'context',
	'in_progress',
	'started_at',
	'ended_at',
	'time_seconds',
	'sentiment',
	'average_latency_ms',
	'user_speaks_first',
	'disconnect_reason',
	'transcript',
].sort();

/** An agent row of the live service, sorted. */
export const LIVE_AGENT_FIELDS = [
	...ROW_FIELDS,
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
	'actions',
	'voicemail_number',
	'chunking',
	'endpointing',
	'voice_optimization',
	'smart_endpointing_threshold',
	'language',
	'compliance_checks',
].sort();

/** RFC 3339 in UTC as Go's RFC3339Nano writes it: 0 to 9 fractional digits, never a trailing zero. */
export const GO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{0,8}[1-9])?Z$/;

/** Go's zero time.Time: a time a row does not have yet. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** The whole second a time falls in, as the cursor writes it (`…38.2001Z` → `…38Z`). */
export function secondOf(time: string): string {
	return `${time.slice(0, 19)}Z`;
}

/** Microseconds since the epoch of a live time (Date.parse keeps only milliseconds). */
export function micros(time: string): number {
	const fraction = /\.(\d+)Z$/.exec(time)?.[1] ?? '';
	return Date.parse(secondOf(time)) * 1000 + Number(fraction.slice(0, 6).padEnd(6, '0'));
}

/** A live answer that must be a 200: its JSON body. */
export function okRow(result: HttpResult): any {
	expect({ status: result.status, text: result.text }).toMatchObject({ status: 200 });
	return result.body;
}

/** POST /agent on a live key with exactly these fields. */
export async function liveAgent(
	sandbox: TestSandbox,
	fields: Record<string, unknown>,
	key?: string,
) {
	return okRow(await sandbox.api('POST', '/agent', { key, body: fields }));
}

/** POST /call from the agent's number (to +14155550123 unless given). */
export async function liveCall(
	sandbox: TestSandbox,
	agent: { phone_number: string },
	fields: Record<string, unknown> = {},
	key?: string,
) {
	const body = { from: agent.phone_number, to: '+14155550123', context: 'Test call', ...fields };
	return okRow(await sandbox.api('POST', '/call', { key, body }));
}

/** GET /call on a live key. */
export async function getLiveCall(sandbox: TestSandbox, id: number, key?: string) {
	return okRow(await sandbox.api('GET', '/call', { key, query: { id } }));
}

/** Waits until the call's row passes `check`, and returns it. */
export function waitForCall(
	sandbox: TestSandbox,
	id: number,
	what: string,
	check: (call: any) => boolean,
	timeoutMs?: number,
) {
	return waitFor(
		what,
		async () => {
			const call = await getLiveCall(sandbox, id);
			return check(call) ? call : undefined;
		},
		timeoutMs,
	);
}

/** What a planned receiver does with one request: answer a status (after `delayMs`), or reset the socket. */
export type ReceiverStep = { status: number; delayMs?: number } | 'reset';

export interface RawRequest {
	/** The body exactly as it came ('' when empty). */
	text: string;
	headers: http.IncomingHttpHeaders;
	/** When it had arrived in full (Date.now()). */
	at: number;
}

/**
 * A webhook receiver that reads every request in full and then follows its plan, one step a request
 * (`fallback` once the plan is spent): answer a status after a delay, or drop the connection without an
 * answer (the receiver has acted, the sender sees a transport error).
 */
export interface PlannedReceiver {
	url: string;
	received: RawRequest[];
	plan: ReceiverStep[];
	fallback: ReceiverStep;
	/** The JSON bodies received, in order (null for an empty body). */
	bodies(): any[];
	waitForCount(count: number, timeoutMs?: number): Promise<RawRequest[]>;
	close(): Promise<void>;
}

export async function startPlannedReceiver(plan: ReceiverStep[] = []): Promise<PlannedReceiver> {
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			receiver.received.push({ text, headers: request.headers, at: Date.now() });
			const step = receiver.plan.shift() ?? receiver.fallback;
			if (step === 'reset') {
				request.socket.destroy();
				return;
			}
			setTimeout(() => {
				response.statusCode = step.status;
				response.end('answered');
			}, step.delayMs ?? 0);
		});
	});
	const local = await listen(server);
	const receiver: PlannedReceiver = {
		url: `${local.origin}/hook`,
		received: [],
		plan: [...plan],
		fallback: { status: 200 },
		bodies: () =>
			receiver.received.map((entry) => (entry.text === '' ? null : JSON.parse(entry.text))),
		waitForCount: (count, timeoutMs) =>
			waitFor(
				() => `${count} webhook requests (got ${receiver.received.length})`,
				() => (receiver.received.length >= count ? receiver.received : undefined),
				timeoutMs,
			),
		close: local.close,
	};
	return receiver;
}
