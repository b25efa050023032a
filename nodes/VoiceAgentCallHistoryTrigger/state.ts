import type { IDataObject } from 'n8n-workflow';

/**
 * A backfill (Start From: All History or Last Days) under way: it reads the list from the newest call
 * down, a batch per poll, from where the last batch stopped.
 */
export interface BackfillState {
	/** The cursor of the page the next batch starts on; none: the first page (the newest calls). */
	cursor?: string;
	/**
	 * With a cursor that is a time (the live service's): IDs of the calls taken that the page at `cursor`
	 * serves again, the seam second's (`shared/transport/seam.ts`); they are dropped from it.
	 */
	seen?: string[];
	/**
	 * IDs of the last calls the backfill took, oldest last: on the page at `cursor` they are skipped, and
	 * when the service refuses the cursor (an expired one) the list is paged from the top down to them.
	 */
	last: string[];
	/** Last Days: calls created before this time (ms, n8n's clock) end the backfill. */
	before?: number;
}

/**
 * What the trigger remembers between polls, in the node's static data (saved by n8n with the workflow,
 * so it survives restarts). IDs are kept as the service gives them: they are only compared for
 * equality, never parsed or ordered. No timestamp of the service is kept but a backfill's cursor, which
 * the live service writes as a time.
 */
export interface CallHistoryState {
	/** The settings the state was made for; other settings start afresh. */
	scope: string;
	/** IDs of the newest calls taken, newest first: a poll pages down to the first of them it meets. */
	seen: string[];
	/** Calls taken but not output yet (Call Ended): in progress, or not read yet; oldest first. */
	pending: string[];
	backfill?: BackfillState;
}

/**
 * `seen` marks a position, not what was output: one call of it that still exists and more than a page
 * tell calls listed late apart from old ones. Calls fall out of it only once they are below the position.
 */
export const MAX_SEEN = 500;
/**
 * The most calls kept pending: calls in progress at once, and calls not read yet. A poll takes new calls
 * only while they fit (it never drops one), so at this bound the position stops until some end. About
 * 24 bytes per ID as the sandbox writes them (40 for a UUID): 240 to 400 KB of static data when full.
 */
export const MAX_PENDING = 10_000;
/** IDs of a backfill's last calls kept to find its place again: one page. */
export const MAX_BACKFILL_LAST = 100;

const STATE_KEY = 'callHistory';

function isStringArray(value: unknown): value is string[] {
	return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

function loadBackfill(saved: unknown): BackfillState | undefined | false {
	if (saved === undefined) return undefined;
	const backfill = saved as IDataObject;
	const { cursor, seen, last, before } = backfill ?? {};
	if (!isStringArray(last)) return false;
	if (cursor !== undefined && typeof cursor !== 'string') return false;
	if (seen !== undefined && !isStringArray(seen)) return false;
	if (before !== undefined && typeof before !== 'number') return false;
	return {
		last: [...last],
		...(cursor === undefined ? {} : { cursor }),
		...(seen === undefined ? {} : { seen: [...seen] }),
		...(before === undefined ? {} : { before }),
	};
}

/** The saved state, when there is one made for this scope. */
export function loadState(staticData: IDataObject, scope: string): CallHistoryState | undefined {
	const saved = staticData[STATE_KEY] as IDataObject | undefined;
	if (!saved || saved.scope !== scope) return undefined;
	if (!isStringArray(saved.seen) || !isStringArray(saved.pending)) return undefined;
	const backfill = loadBackfill(saved.backfill);
	if (backfill === false) return undefined;
	const state: CallHistoryState = { scope, seen: [...saved.seen], pending: [...saved.pending] };
	return backfill ? { ...state, backfill } : state;
}

/**
 * Replaces the saved state, only when it changed: n8n saves static data that is marked as changed,
 * and any assignment marks it. Pending calls are never cut: the poll takes only what fits.
 */
export function storeState(staticData: IDataObject, state: CallHistoryState): void {
	const saved = staticData[STATE_KEY] as IDataObject | undefined;
	const next: IDataObject = {
		scope: state.scope,
		seen: state.seen.slice(0, MAX_SEEN),
		pending: state.pending,
	};
	if (state.backfill) next.backfill = { ...state.backfill };
	if (saved && JSON.stringify(saved) === JSON.stringify(next)) return;
	staticData[STATE_KEY] = next;
}

/** The calls taken now, newest first, ahead of those seen before; at most MAX_SEEN. */
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
