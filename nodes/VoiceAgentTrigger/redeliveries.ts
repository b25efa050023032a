import { sleep } from 'n8n-workflow';

/** Events remembered per trigger registration: far more than the service redelivers within its retries. */
const EVENTS_PER_TRIGGER = 1000;
/** Trigger registrations remembered per process; the least recently used is forgotten first. */
const TRIGGERS = 200;
/** The largest answer kept to be sent again to a redelivered tool call (bytes of its body). */
const MAX_KEPT_ANSWER = 64 * 1024;
/** All answers kept in this process together: past it, a handled event is remembered without its answer. */
const MAX_KEPT_ANSWERS = 8 * 1024 * 1024;

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
/** Deliveries waiting for the run of an event in flight to be settled, by trigger and key. */
const waiting = new Map<string, Array<() => void>>();

const waitingKey = (trigger: string, key: string) => `${trigger}\n${key}`;

/** Wakes every delivery waiting for this event: its run was settled (or its memory dropped). */
function wake(trigger: string, key: string): void {
	const id = waitingKey(trigger, key);
	const waiters = waiting.get(id);
	if (!waiters) return;
	waiting.delete(id);
	for (const resolve of waiters) resolve();
}
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
	wake(trigger, key);
}

/** The event was not handled (its run failed, or n8n answered it non-2xx): a redelivery runs it again. */
export function forget(trigger: string, key: string): void {
	const events = known.get(trigger);
	if (events) dropEvent(events, key);
	wake(trigger, key);
}

/**
 * Waits until the event's run in flight is settled (handled or forgotten), at most `timeoutMs`; at once
 * when it is not in flight. The caller then looks at `stateOf` again.
 */
export async function untilSettled(trigger: string, key: string, timeoutMs: number): Promise<void> {
	if (stateOf(trigger, key)?.inFlight !== true) return;
	const id = waitingKey(trigger, key);
	let resolve!: () => void;
	const settled = new Promise<void>((done) => (resolve = done));
	const waiters = waiting.get(id) ?? [];
	waiters.push(resolve);
	waiting.set(id, waiters);
	// The timer ends with the wait (n8n-workflow versions whose sleep takes no signal let it run out).
	const timer = new AbortController();
	await Promise.race([settled, sleep(timeoutMs, timer.signal).catch(() => undefined)]);
	timer.abort();
	// Timed out: this delivery no longer waits (the list goes once the run is settled).
	const left = waiting.get(id);
	if (left) {
		const rest = left.filter((waiter) => waiter !== resolve);
		if (rest.length > 0) waiting.set(id, rest);
		else waiting.delete(id);
	}
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
