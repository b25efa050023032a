import { callPage, type CallFilter } from '../shared/api/calls';
import { asNodeError, dataProblemError, isTransient } from '../shared/errors';
import { CursorLoopGuard, MAX_PAGE_SIZE, type PagePosition } from '../shared/transport/pagination';
import { cursorAt, secondOf } from '../shared/transport/seam';
import type { VoiceAgentContext } from '../shared/transport/types';
import type { CallSummary } from '../shared/types';
import { POLL } from './scan';
import { createdBefore } from './settings';
import { MAX_BACKFILL_LAST, type BackfillState } from './state';

/** What one poll took of a backfill. */
export interface BackfillBatch {
	/** The calls taken, newest first. */
	calls: CallSummary[];
	/** Where the next batch starts; undefined once the backfill has reached its end. */
	next?: BackfillState;
	/** IDs of the first page of the list, when this batch read it (the newest calls at the start). */
	top?: string[];
	/** What stopped the batch early; the calls taken before it are kept. */
	failure?: Error;
}

/** A page of the list as the backfill reads it: its calls, the position that gave it and the next one. */
interface PageRead {
	calls: CallSummary[];
	at?: PagePosition;
	next?: PagePosition;
}

/** The calls after the last of `last` on a page: those before it were taken by an earlier batch. */
function afterLast(
	calls: readonly CallSummary[],
	last: ReadonlySet<string>,
): CallSummary[] | undefined {
	let index = -1;
	calls.forEach((call, position) => {
		if (last.has(call.id)) index = position;
	});
	return index < 0 ? undefined : calls.slice(index + 1);
}

/**
 * The service refused the backfill's cursor (it may expire): the list is paged again from the top, one
 * page at a time, down to the page holding the last calls taken, and goes on after them. Calls above
 * them were taken already (by the backfill or by the polls above it), so none is output twice.
 */
async function findPlaceAgain(
	context: VoiceAgentContext,
	filter: CallFilter,
	last: ReadonlySet<string>,
): Promise<PageRead> {
	const guard = new CursorLoopGuard();
	let at: PagePosition | undefined;
	for (;;) {
		const page = await callPage(context, filter, at, MAX_PAGE_SIZE, POLL);
		const after = afterLast(page.items, last);
		if (after !== undefined) return { calls: after, at, next: page.next };
		// None of its last calls is listed any more: the backfill ends where the list does.
		if (page.next === undefined) return { calls: [] };
		if (guard.repeats(page.next)) throw repeatedCursor(context, page.next);
		at = page.next;
	}
}

/**
 * Where the backfill's next page starts, as saved. A cursor that is a time saved without the seam's ids
 * (by a version before them) is the service's own: the page is asked from the second after it, and the
 * last calls taken are dropped from it (`seam.ts`).
 */
function pagePosition({ cursor, seen, last }: BackfillState): PagePosition | undefined {
	if (cursor === undefined) return undefined;
	if (seen !== undefined) return { cursor, seen };
	const second = secondOf(cursor);
	return second ? { cursor: cursorAt(second.ms + 1000, second.zoned), seen: last } : { cursor };
}

async function readPage(
	context: VoiceAgentContext,
	filter: CallFilter,
	position: BackfillState,
	want: number,
): Promise<PageRead> {
	const last = new Set(position.last);
	// Its place is on the first page: new calls come in above it there, so it is found by its last calls.
	if (position.cursor === undefined && last.size > 0)
		return await findPlaceAgain(context, filter, last);
	const at = pagePosition(position);
	try {
		const page = await callPage(context, filter, at, want, POLL);
		return { calls: afterLast(page.items, last) ?? page.items, at, next: page.next };
	} catch (error) {
		if (position.cursor === undefined || isTransient(error))
			throw asNodeError(context.getNode(), error);
		return await findPlaceAgain(context, filter, last);
	}
}

/**
 * The next batch of a backfill: at most `room` calls from where the last batch stopped, newest first,
 * down to the end of the list or the start of Last Days. The position moves page by page, so a failure
 * keeps what was read before it, and the next poll goes on from there.
 */
export async function readBackfill(
	context: VoiceAgentContext,
	filter: CallFilter,
	backfill: BackfillState,
	room: number,
): Promise<BackfillBatch> {
	const batch: BackfillBatch = { calls: [], next: backfill };
	const isOld = backfill.before === undefined ? () => false : createdBefore(backfill.before);
	const guard = new CursorLoopGuard();
	const position = (at: PagePosition | undefined): BackfillState => {
		const taken = [...backfill.last, ...batch.calls.map((call) => call.id)];
		const state: BackfillState = { last: taken.slice(-MAX_BACKFILL_LAST) };
		if (backfill.before !== undefined) state.before = backfill.before;
		if (at?.cursor !== undefined) state.cursor = at.cursor;
		if (at?.seen !== undefined) state.seen = at.seen;
		return state;
	};
	try {
		while (batch.next && batch.calls.length < room) {
			const want = Math.min(MAX_PAGE_SIZE, room - batch.calls.length);
			const page = await readPage(context, filter, batch.next, want);
			if (batch.next.cursor === undefined && batch.next.last.length === 0)
				batch.top = page.calls.map((call) => call.id);
			const old = page.calls.findIndex(isOld);
			const recent = old < 0 ? page.calls : page.calls.slice(0, old);
			const taken = recent.slice(0, room - batch.calls.length);
			batch.calls.push(...taken);
			if (taken.length < recent.length) batch.next = position(page.at);
			else if (old >= 0 || page.next === undefined) batch.next = undefined;
			else if (guard.repeats(page.next)) throw repeatedCursor(context, page.next);
			else batch.next = position(page.next);
		}
	} catch (error) {
		batch.failure = error as Error;
	}
	return batch;
}

function repeatedCursor(context: VoiceAgentContext, { cursor }: PagePosition): Error {
	return dataProblemError(context.getNode(), {
		message: `The Voice Agent API repeated a pagination cursor for GET /calls (${String(cursor).slice(0, 40)}); the backfill stopped instead of looping`,
	});
}
