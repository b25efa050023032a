import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

/** Events remembered per trigger registration: far more than the service redelivers within its retries. */
const EVENTS_PER_TRIGGER = 1000;
/** Trigger registrations remembered per process; the least recently used is forgotten first. */
const TRIGGERS = 200;
/** The largest answer kept to be sent again to a redelivered tool call (bytes of its body). */
const MAX_KEPT_ANSWER = 64 * 1024;
/** All answers kept in this process together: past it, a handled event is remembered without its answer. */
const MAX_KEPT_ANSWERS = 8 * 1024 * 1024;

/** JSON with object keys sorted, so the same value always gives the same text. */
function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableJson((value as IDataObject)[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/**
 * The same for every delivery of one event, whatever n8n process receives it: the service sends no
 * event ID, but a redelivery repeats the same body (type, call, timestamp, data). A tool call's data
 * counts too, since one call may ask for several tools.
 */
export function dedupeKey(event: IDataObject): string {
	const parts = [event.event_type, event.call_id ?? null, event.timestamp ?? null];
	if (event.event_type === 'tool_call') parts.push(event.data ?? null);
	return createHash('sha256').update(stableJson(parts)).digest('hex').slice(0, 32);
}

/** An answer n8n sent for a handled event, kept to answer a redelivered tool call the same way. */
export interface KeptAnswer {
	status: number;
	contentType: string | undefined;
	body: string;
}

/**
 * What this process knows of an event: a run for it is under way (`inFlight`), or it was handled
 * (the workflow accepted it, or its run answered 2xx), perhaps with the answer then sent.
 */
export type EventState = { inFlight: true } | { inFlight: false; answer?: KeptAnswer };

/** Events per trigger registration, in this process only; Maps keep insertion order for the bounds. */
const known = new Map<string, Map<string, EventState>>();
/** Bytes of the answers kept now, across triggers. */
let keptBytes = 0;

function sizeOf(state: EventState | undefined): number {
	return state && !state.inFlight && state.answer ? Buffer.byteLength(state.answer.body) : 0;
}

function dropEvent(events: Map<string, EventState>, key: string): void {
	keptBytes -= sizeOf(events.get(key));
	events.delete(key);
}

function eventsOf(trigger: string): Map<string, EventState> {
	let events = known.get(trigger);
	if (events) known.delete(trigger);
	else events = new Map();
	known.set(trigger, events);
	if (known.size > TRIGGERS) {
		const oldest = known.keys().next().value as string;
		for (const state of known.get(oldest)?.values() ?? []) keptBytes -= sizeOf(state);
		known.delete(oldest);
	}
	return events;
}

function remember(trigger: string, key: string, state: EventState): void {
	const events = eventsOf(trigger);
	dropEvent(events, key);
	events.set(key, state);
	keptBytes += sizeOf(state);
	if (events.size > EVENTS_PER_TRIGGER) dropEvent(events, events.keys().next().value as string);
}

/** What this trigger knows of the event (read only). */
export function stateOf(trigger: string, key: string): EventState | undefined {
	return known.get(trigger)?.get(key);
}

/**
 * Claims the event for one delivery, synchronously: true when this process knew nothing of it, and
 * it is now in flight; false when it is in flight or handled already, so no second run starts.
 */
export function beginHandling(trigger: string, key: string): boolean {
	if (stateOf(trigger, key) !== undefined) return false;
	remember(trigger, key, { inFlight: true });
	return true;
}

/** The event was handled: redeliveries start nothing (and get this answer again, when kept). */
export function recordHandled(trigger: string, key: string, answer?: KeptAnswer): void {
	const size = answer ? Buffer.byteLength(answer.body) : 0;
	const fits = size <= MAX_KEPT_ANSWER && keptBytes + size <= MAX_KEPT_ANSWERS;
	const kept = answer && fits ? answer : undefined;
	remember(trigger, key, kept ? { inFlight: false, answer: kept } : { inFlight: false });
}

/** The event was not handled (its run failed, or it was refused): a redelivery runs it again. */
export function forget(trigger: string, key: string): void {
	const events = known.get(trigger);
	if (events) dropEvent(events, key);
}

/**
 * How n8n answered the delivery whose run handles the event: 2xx records it (with the answer, when
 * given, to send again), anything else forgets it.
 */
export function settle(
	trigger: string,
	key: string,
	status: number,
	answer: KeptAnswer | undefined,
): void {
	if (stateOf(trigger, key)?.inFlight !== true) return;
	if (status >= 200 && status < 300) recordHandled(trigger, key, answer);
	else forget(trigger, key);
}
