import { LONGEST_CALL_MS, surelyEnded } from '../../../../../shared/callStatus';
import { canonicalPhoneNumber } from '../../../../../shared/phoneNumber';
import type { CallLedger, CallRecord } from '../model';

/**
 * Where a number stands in this n8n process: `deciding` (its checks and look-ups run), `placing`
 * (POST /call in flight), `placed` (its call may be in progress). States only move forward; then the
 * number is gone from the gate. See README.md beside this file.
 */
export type GateState = 'deciding' | 'placing' | 'placed';

/** Who holds a number: the execution (its ledger, its run) and the item's record. */
export interface Holder {
	executionId: string;
	/** The same object for every use of the node in one execution (MCP tool calls share an ID). */
	ledger: CallLedger;
	/** The node run (loop pass); tools: none. */
	run?: number;
	itemIndex: number;
	record: CallRecord;
}

/** A number in the gate, as whoever meets it reads it. */
export interface GateEntry {
	readonly state: GateState;
	readonly holder: Holder;
	/** The call placed (state `placed`); undefined when the service's answer left it unknown. */
	readonly callId?: string;
	/** n8n's clock when POST /call landed. */
	readonly placedAt?: number;
	/** n8n's clock when the call was seen to end; undefined: it may be in progress. */
	readonly endedAt?: number;
}

interface Entry extends GateEntry {
	key: string;
	state: GateState;
	callId?: string;
	placedAt?: number;
	endedAt?: number;
	/** Resolves when the holder leaves `deciding`/`placing`. */
	settled: Promise<void>;
	settle(): void;
}

/** A call seen to end is kept this long: the time the service's list may take to show it. */
const ENDED_KEPT_MS = 60_000;
/**
 * The most numbers the gate keeps, about 100 bytes each. Full, it drops what it may (calls past their bound,
 * calls seen to end, oldest first) and otherwise refuses a new number (`GATE_FULL`): a number whose call
 * may be in progress is never forgotten.
 */
export const MAX_ENTRIES = 50_000;
/** What `enterGate` answers when the gate holds MAX_ENTRIES numbers whose calls may be in progress. */
export const GATE_FULL = 'full';
/** How often the gate drops what it keeps no longer. */
const SWEEP_EVERY_MS = 10_000;

/**
 * Every number of the process, by account, caller and number. Module scope on purpose: n8n runs one job
 * as many executions at once (MCP tool calls, redelivered webhooks, overlapping passes, Retry execution
 * while the original runs), gives nodes no lock, but all executions of one process share this module.
 * In queue mode each worker process has its own.
 */
const entries = new Map<string, Entry>();
/** The gate key of each placed call, by account and call ID: two accounts may give their calls one ID. */
const keysByCall = new Map<string, string>();
let pendingWaits = 0;
let sweptAt = 0;

/**
 * The gate key: the account as a fingerprint of its Base URL and key (never the key), the caller as the
 * number the call is placed from (an agent's own number when From names the agent by ID or name, so
 * both ways of naming one agent meet) and the canonical number called.
 */
export function gateKey(account: string, caller: string, to: string): string {
	return `${account}|${caller}>${to}`;
}

/** The From number in its canonical form when it has one (the service may spell an agent's otherwise). */
export function callerNumber(from: string): string {
	const canonical = canonicalPhoneNumber(from);
	return 'number' in canonical ? canonical.number : from;
}

/** The account's part of a gate key (`gateKey`): a fingerprint, hex digits. */
const accountOf = (key: string) => key.slice(0, key.indexOf('|'));
const callKey = (account: string, callId: string) => `${account}|${callId}`;

function forget(key: string, entry: Entry): void {
	if (entries.get(key) !== entry) return;
	entries.delete(key);
	const byCall = entry.callId === undefined ? undefined : callKey(accountOf(key), entry.callId);
	if (byCall !== undefined && keysByCall.get(byCall) === key) keysByCall.delete(byCall);
}

function expired(entry: Entry, now: number): boolean {
	if (entry.state !== 'placed') return false;
	if (entry.endedAt !== undefined) return now - entry.endedAt >= ENDED_KEPT_MS;
	return now - (entry.placedAt as number) >= LONGEST_CALL_MS;
}

function sweep(now: number, always = false): void {
	if (!always && now - sweptAt < SWEEP_EVERY_MS) return;
	sweptAt = now;
	for (const [key, entry] of entries) if (expired(entry, now)) forget(key, entry);
}

/** The holder's pass: it moves its number forward, and lets it go. */
export interface GatePass {
	placing(): void;
	/** POST /call landed with this call: kept while it may be in progress. */
	placed(callId: string): void;
	/** POST /call may have placed a call nobody could name: whoever meets it asks the list (meetNumber.ts). */
	unknown(): void;
	/** Nothing more to hold (nothing placed, a call found in the list, an outcome unknown). */
	leave(): void;
}

/**
 * Enters the number, synchronously (one step with the caller's decision): a pass when nobody holds it,
 * otherwise what holds it; `GATE_FULL` when the gate keeps MAX_ENTRIES numbers it may not drop. A stale
 * entry (its bound is over) is dropped first.
 */
export function enterGate(
	key: string,
	holder: Holder,
	now: number,
): GatePass | GateEntry | typeof GATE_FULL {
	sweep(now);
	const held = entries.get(key);
	if (held && !expired(held, now)) return held;
	if (held) forget(key, held);
	if (entries.size >= MAX_ENTRIES && !madeRoom(now)) return GATE_FULL;
	let settle = () => {};
	const entry: Entry = {
		key,
		state: 'deciding',
		holder,
		settled: new Promise<void>((resolve) => (settle = resolve)),
		settle: () => settle(),
	};
	entries.set(key, entry);
	return {
		placing() {
			if (entry.state === 'deciding') entry.state = 'placing';
		},
		placed(callId) {
			if (entry.state === 'placed') return;
			entry.state = 'placed';
			entry.callId = callId;
			entry.placedAt = Date.now();
			keysByCall.set(callKey(accountOf(key), callId), key);
			entry.settle();
		},
		unknown() {
			if (entry.state === 'placed') return;
			entry.state = 'placed';
			entry.placedAt = Date.now();
			entry.settle();
		},
		leave() {
			if (entry.state !== 'placed') forget(key, entry);
			entry.settle();
		},
	};
}

/**
 * Room for one more number: calls past their bound go, then calls seen to end, oldest first. A call that
 * may be in progress is never dropped: false when none could go.
 */
function madeRoom(now: number): boolean {
	sweep(now, true);
	for (const [key, entry] of entries) {
		if (entries.size < MAX_ENTRIES) return true;
		if (entry.endedAt !== undefined) forget(key, entry);
	}
	return entries.size < MAX_ENTRIES;
}

export const isPass = (met: GatePass | GateEntry): met is GatePass => 'leave' in met;

/**
 * The call was seen to end (by its holder's wait, or by an execution that met it): only a call that
 * surely ended (an end time, or a status that says so) counts. By account and ID: another account's call
 * with the same ID is another call.
 */
export function callEnded(
	account: string,
	call: { id: string; status?: unknown; ended_at?: unknown },
	now = Date.now(),
): void {
	if (!surelyEnded(call)) return;
	const key = keysByCall.get(callKey(account, call.id));
	const entry = key === undefined ? undefined : entries.get(key);
	if (entry && entry.callId === call.id && entry.endedAt === undefined) entry.endedAt = now;
}

/** Whether this process placed the account's call (its gate holds it): its number is known here. */
export function placedHere(account: string, callId: string): boolean {
	return keysByCall.has(callKey(account, callId));
}

/**
 * A placed call that the meeting item found ended (outside its skip window) or unknown to the service
 * (404): the number is free again.
 */
export function letGo(met: GateEntry): void {
	if (met.state === 'placed') forget((met as Entry).key, met as Entry);
}

/**
 * Waits until the holder of `entry` leaves `deciding`/`placing`, or `signal` aborts (its execution
 * was stopped): a stopped execution never waits on.
 */
export async function waitForHolder(entry: GateEntry, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) return;
	pendingWaits++;
	try {
		await new Promise<void>((resolve) => {
			const done = () => {
				signal?.removeEventListener('abort', done);
				resolve();
			};
			signal?.addEventListener('abort', done, { once: true });
			void (entry as Entry).settled.then(done);
		});
	} finally {
		pendingWaits--;
	}
}

/**
 * Drops every number the gate keeps, as a fresh n8n process starts: for tests that start each case with a
 * fresh service (whose call IDs begin again), never called by the nodes.
 */
export function clearGate(): void {
	entries.clear();
	keysByCall.clear();
}

/** Read-only counters, for tests of bounded memory: the gate's numbers by state, and waits pending. */
export function gateCounts(): Record<GateState, number> & { waits: number } {
	const counts = { deciding: 0, placing: 0, placed: 0, waits: pendingWaits };
	for (const entry of entries.values()) counts[entry.state]++;
	return counts;
}
