import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger remembers between polls, in the node's static data (saved by n8n with the workflow,
 * so it survives restarts). IDs are kept as the service gives them: they are only compared for
 * equality, never parsed or ordered, and no timestamp of the service is kept.
 */
export interface CallHistoryState {
	/** The settings the state was made for; other settings start afresh. */
	scope: string;
	/** IDs of the newest calls seen, newest first: a poll pages down to the first of them it meets. */
	seen: string[];
	/** Calls seen in progress whose end was not output yet (Call Ended), oldest first. */
	pending: string[];
}

/**
 * Bounds of the saved state (about 25 bytes per ID). `seen` needs one call that still exists and more
 * than a page, to tell calls listed late apart from old ones; `pending` holds calls in progress at once.
 */
const MAX_SEEN = 500;
const MAX_PENDING = 1_000;

const STATE_KEY = 'callHistory';

function isStringArray(value: unknown): value is string[] {
	return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** The saved state, when there is one made for this scope. */
export function loadState(staticData: IDataObject, scope: string): CallHistoryState | undefined {
	const saved = staticData[STATE_KEY] as IDataObject | undefined;
	if (!saved || saved.scope !== scope) return undefined;
	if (!isStringArray(saved.seen) || !isStringArray(saved.pending)) return undefined;
	return { scope, seen: [...saved.seen], pending: [...saved.pending] };
}

/**
 * Replaces the saved state, only when it changed: n8n saves static data that is marked as changed,
 * and any assignment marks it.
 */
export function storeState(staticData: IDataObject, state: CallHistoryState): void {
	const saved = staticData[STATE_KEY] as IDataObject | undefined;
	const next = {
		scope: state.scope,
		seen: state.seen.slice(0, MAX_SEEN),
		pending: state.pending.slice(-MAX_PENDING),
	};
	if (saved && JSON.stringify(saved) === JSON.stringify(next)) return;
	staticData[STATE_KEY] = next;
}

/** The calls seen now, newest first, ahead of those seen before; at most MAX_SEEN. */
export function mergeSeen(newestFirst: readonly string[], before: readonly string[]): string[] {
	const merged: string[] = [];
	const added = new Set<string>();
	for (const id of [...newestFirst, ...before]) {
		if (merged.length >= MAX_SEEN) break;
		if (added.has(id)) continue;
		added.add(id);
		merged.push(id);
	}
	return merged;
}
