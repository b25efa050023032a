import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import type { Call } from '../types';
import { isPlainObject } from '../validation';
import { parsedBody } from './body';
import { decodeCall } from './call';
import { idText } from './ids';

/*
 * The one decoder of webhook events. The documented service sends `{ event_type, call_id, timestamp, data }`
 * (a tool call's data `{ name, arguments }`); the live service sends `{ event, call, data? }`: the whole call
 * row, no timestamp, no event id, and for `tool_call` a list of OpenAI tool calls in `data` (`action`: one of
 * them), each `{ id, type, function: { name, arguments } }` with the arguments as JSON text.
 */

export type EventShape = 'documented' | 'live';

/** One tool call of an event, its arguments parsed (text that is not JSON stays text). */
export interface EventToolCall extends IDataObject {
	id: string | null;
	name: string | null;
	arguments: IDataObject | string | number | boolean | unknown[];
}

export interface DecodedEvent {
	shape: EventShape;
	/** The event's name: `event_type` (documented) or `event` (live). */
	eventType: string;
	/** The call's id: `call_id` as sent (documented), the call's id as text (live); null without one. */
	callId: unknown;
	/** `timestamp` as sent (documented); the live call's start or end for call_started / call_ended. */
	timestamp: unknown;
	/** `data` as sent; `{}` when the event has none. */
	data: unknown;
	/** The call the event carries whole (live events). */
	call?: Call;
	/** The tool calls of a `tool_call` or `action` event, in order. */
	toolCalls?: EventToolCall[];
	/** The same for every delivery of one event, whatever n8n process receives it. */
	dedupeKey: string;
}

/** JSON with object keys sorted, so the same value always gives the same text. */
export function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableJson((value as IDataObject)[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

const keyOf = (parts: unknown[]) =>
	createHash('sha256').update(stableJson(parts)).digest('hex').slice(0, 32);

/**
 * The documented event's key, as earlier versions made it (keys users stored stay valid): its type, call
 * and timestamp, and a tool call's data, since one call may ask for several tools.
 */
function documentedKey(eventType: string, callId: unknown, timestamp: unknown, data: unknown) {
	const parts = [eventType, callId ?? null, timestamp ?? null];
	if (eventType === 'tool_call') parts.push(data ?? null);
	return keyOf(parts);
}

/**
 * A live event has no id and no timestamp. A call starts once and ends once, so its name and the call's
 * id name the event; the moment the row records for it (`started_at`, `ended_at`: written once, never
 * changed after) tells apart a call whose id a fresh database gave again. Fields that change during the
 * call (`in_progress`, `updated_at`, the transcript, the sentiment) are left out: a retry may carry the row
 * as it is by then. Tool calls and actions are told apart by their data (each tool call has its own id).
 */
function liveKey(eventType: string, call: Call | undefined, data: unknown) {
	const moment =
		eventType === 'call_started'
			? (call?.started_at ?? null)
			: eventType === 'call_ended'
				? (call?.ended_at ?? null)
				: null;
	const told = eventType === 'call_started' || eventType === 'call_ended' ? null : (data ?? null);
	return keyOf(['live', eventType, call?.id ?? null, moment, told]);
}

/** A tool call's arguments: JSON text parsed, other text kept; none at all is `{}`. */
function argumentsOf(raw: unknown): EventToolCall['arguments'] {
	if (raw === undefined || raw === null || raw === '') return {};
	if (typeof raw !== 'string') return raw as EventToolCall['arguments'];
	const parsed = parsedBody(raw);
	return parsed === null ? {} : (parsed as EventToolCall['arguments']);
}

/** An OpenAI tool call `{ id, type, function: { name, arguments } }`; undefined for anything else. */
function decodeToolCall(raw: unknown): EventToolCall | undefined {
	if (!isPlainObject(raw)) return undefined;
	const fn = isPlainObject(raw.function) ? raw.function : raw;
	const name = typeof fn.name === 'string' ? fn.name : null;
	if (name === null && !isPlainObject(raw.function)) return undefined;
	return { id: idText(raw.id) ?? null, name, arguments: argumentsOf(fn.arguments) };
}

/** The tool calls of a live `tool_call` (a list) or `action` (one). */
function liveToolCalls(data: unknown): EventToolCall[] {
	const list = Array.isArray(data) ? data : [data];
	return list.map(decodeToolCall).filter((call): call is EventToolCall => call !== undefined);
}

function liveTimestamp(eventType: string, call: Call | undefined): unknown {
	if (eventType === 'call_started') return call?.started_at ?? null;
	if (eventType === 'call_ended') return call?.ended_at ?? null;
	return null;
}

function decodeLive(body: IDataObject, eventType: string): DecodedEvent {
	const call = decodeCall(body.call);
	const data = body.data ?? {};
	const event: DecodedEvent = {
		shape: 'live',
		eventType,
		callId: call?.id ?? null,
		timestamp: liveTimestamp(eventType, call),
		data,
		dedupeKey: liveKey(eventType, call, body.data),
	};
	if (call) event.call = call;
	if (eventType === 'tool_call' || eventType === 'action') event.toolCalls = liveToolCalls(data);
	return event;
}

function decodeDocumented(body: IDataObject, eventType: string): DecodedEvent {
	const data = body.data ?? {};
	const event: DecodedEvent = {
		shape: 'documented',
		eventType,
		callId: body.call_id ?? null,
		timestamp: body.timestamp ?? null,
		data,
		dedupeKey: documentedKey(eventType, body.call_id, body.timestamp, body.data),
	};
	if (eventType === 'tool_call' && isPlainObject(body.data)) {
		const { name, arguments: args } = body.data;
		event.toolCalls = [
			{
				id: null,
				name: typeof name === 'string' ? name : ((name ?? null) as string | null),
				arguments: isPlainObject(args) ? args : {},
			},
		];
	}
	return event;
}

const nonEmptyText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The event a delivery carries, or undefined when it carries none: not a JSON object (empty, cut short,
 * a list, text), or without a name (`event_type`, or the live service's `event`). A body that is JSON text
 * (sent as `text/plain`) is parsed first. With both names, the documented shape is read.
 */
export function decodeEvent(raw: unknown): DecodedEvent | undefined {
	const body = parsedBody(raw);
	if (!isPlainObject(body)) return undefined;
	if (nonEmptyText(body.event_type)) return decodeDocumented(body, body.event_type);
	if (body.event_type === undefined && nonEmptyText(body.event))
		return decodeLive(body, body.event);
	return undefined;
}
