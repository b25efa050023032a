import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

/** Events remembered per trigger registration: far more than the service redelivers within its retries. */
const EVENTS_PER_TRIGGER = 1000;
/** Trigger registrations remembered per process; the least recently used is forgotten first. */
const TRIGGERS = 200;

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

/** Dedupe keys of the events accepted, per trigger registration, in this process only. */
const accepted = new Map<string, Set<string>>();

/**
 * Records that this trigger accepted the event, and says whether it had already: a redelivery then
 * starts nothing. Memory is bounded (oldest events and least recently used triggers are forgotten),
 * and each n8n process remembers only what it received itself.
 */
export function acceptOnce(trigger: string, key: string): boolean {
	let keys = accepted.get(trigger);
	if (keys) accepted.delete(trigger);
	else keys = new Set();
	accepted.set(trigger, keys);
	if (accepted.size > TRIGGERS) accepted.delete(accepted.keys().next().value as string);

	if (keys.has(key)) return false;
	keys.add(key);
	if (keys.size > EVENTS_PER_TRIGGER) keys.delete(keys.values().next().value as string);
	return true;
}

/** Whether this trigger accepted the event already (read only: nothing is recorded). */
export function wasAccepted(trigger: string, key: string): boolean {
	return accepted.get(trigger)?.has(key) === true;
}
