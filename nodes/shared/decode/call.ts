import type { IDataObject } from 'n8n-workflow';

import { derivedStatus } from '../callStatus';
import { isNoTime, latestInstantOf } from '../serviceTime';
import type { Call } from '../types';
import { isPlainObject } from '../validation';
import { parsedBody } from './body';
import { idText, keepWireId } from './ids';
import { decodeTranscript } from './transcript';

/*
 * The one decoder of calls: a call as the documented service writes it (`status`, `to`, `duration`,
 * transcript turns `{ speaker, text }`) and as the live service writes it (numeric ids, no `status`,
 * `from`, `to` or `duration`, but `in_progress`, a zero-time `ended_at` until the call ends,
 * `client_number` empty until it connects, `time_seconds`, chat-message transcripts) become one model
 * (`types.ts` Call). The call's own fields pass through; only these are read or derived.
 */

/** The system messages of a decoded call's transcript (the agent's prompt and the call's context). */
const systemMessages = new WeakMap<object, string[]>();

/** The system messages a decoded call's transcript had; none for a call not decoded here. */
export function systemMessagesOf(call: object): string[] {
	return systemMessages.get(call) ?? [];
}

/** A copy of a decoded call (`{ ...call, more }`) keeps its system messages. */
export function withSystemMessagesOf<T extends object>(decoded: object, copy: T): T {
	const system = systemMessages.get(decoded);
	if (system) systemMessages.set(copy, system);
	return copy;
}

/** What the decoder needs besides the answer: the service's time of answering, to date a call that rings. */
export interface CallReading {
	serviceNowMs?: number;
}

const asNumber = (value: unknown): number | null =>
	typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * The call an answer carries, or undefined when it carries none: not an object, no id, or a status that
 * is not text. A body that is JSON text (`text/plain`) is parsed first.
 */
export function decodeCall(raw: unknown, reading: CallReading = {}): Call | undefined {
	const body = parsedBody(raw);
	if (!isPlainObject(body)) return undefined;
	const id = idText(body.id);
	if (id === undefined) return undefined;
	const given = body.status;
	if (given !== undefined && given !== null && typeof given !== 'string') return undefined;
	const call: IDataObject = { ...body, id, agent_id: idText(body.agent_id) ?? '' };
	if (idText(body.user_id) !== undefined) call.user_id = idText(body.user_id);
	for (const time of ['ended_at', 'started_at'])
		if (time in body && isNoTime(body[time])) call[time] = null;
	const transcript = decodeTranscript(body.transcript);
	if (transcript) call.transcript = transcript.turns;
	if (typeof given === 'string') call.status = given;
	else Object.assign(call, derivedFields(body, call, reading));
	const decoded = call as Call;
	keepWireId(decoded, body.id as string | number);
	if (transcript && transcript.system.length > 0) systemMessages.set(decoded, transcript.system);
	return decoded;
}

/** A call of a service that writes no status (the live one): its status, `to` and `duration` derived. */
function derivedFields(body: IDataObject, call: IDataObject, { serviceNowMs }: CallReading) {
	const ended = call.ended_at !== null && call.ended_at !== undefined;
	const status = derivedStatus(
		{ connected: body.in_progress === true, ended, createdAtMs: latestInstantOf(body.created_at) },
		serviceNowMs,
	);
	const fields: IDataObject = { status };
	const number = body.client_number;
	if (body.to === undefined && typeof number === 'string' && number !== '') fields.to = number;
	if (body.duration === undefined) fields.duration = ended ? asNumber(body.time_seconds) : null;
	return fields;
}

/** What came instead of a call, in a few words (never its content), for the error that says so. */
export function describeNotCall(raw: unknown, id: string): string {
	const answer = parsedBody(raw);
	if (answer === null || answer === undefined || answer === '') return 'an empty answer';
	if (Array.isArray(answer)) return 'a list';
	if (typeof answer === 'string') return 'text that is not JSON';
	if (!isPlainObject(answer)) return `a ${typeof answer}`;
	const answered = idText(answer.id);
	if (answered === undefined) return "an object without the call's id";
	if (answered !== id) return 'another call';
	return 'a status that is not text';
}
