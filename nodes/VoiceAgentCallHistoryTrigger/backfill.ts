import { callPage, type CallFilter } from '../shared/api/calls';
import { asNodeError, dataProblemError, isTransient } from '../shared/errors';
import { MAX_PAGE_SIZE } from '../shared/transport/pagination';
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

/** A page of the list as the backfill reads it: its calls, the cursor that gave it and the next one. */
interface PageRead {
	calls: CallSummary[];
	cursor?: string;
	next?: string;
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
	let cursor: string | undefined;
	for (;;) {
		const page = await callPage(context, filter, cursor, MAX_PAGE_SIZE, POLL);
		const after = afterLast(page.items, last);
		if (after !== undefined) return { calls: after, cursor, next: page.next };
		// None of its last calls is listed any more: the backfill ends where the list does.
		if (page.next === undefined) return { calls: [] };
		cursor = page.next;
	}
}

async function readPage(
	context: VoiceAgentContext,
	filter: CallFilter,
	position: BackfillState,
	limit: number,
): Promise<PageRead> {
	const last = new Set(position.last);
	// Its place is on the first page: new calls come in above it there, so it is found by its last calls.
	if (position.cursor === undefined && last.size > 0)
		return await findPlaceAgain(context, filter, last);
	try {
		const page = await callPage(context, filter, position.cursor, limit, POLL);
		return {
			calls: afterLast(page.items, last) ?? page.items,
			cursor: position.cursor,
			next: page.next,
		};
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
	const cursors = new Set<string>();
	const position = (cursor: string | undefined): BackfillState => {
		const taken = [...backfill.last, ...batch.calls.map((call) => call.id)];
		const last = taken.slice(-MAX_BACKFILL_LAST);
		const state: BackfillState = { ...backfill, last };
		delete state.cursor;
		return cursor === undefined ? state : { ...state, cursor };
	};
	try {
		while (batch.next && batch.calls.length < room) {
			const limit = Math.min(MAX_PAGE_SIZE, room - batch.calls.length);
			const page = await readPage(context, filter, batch.next, limit);
			if (batch.next.cursor === undefined && batch.next.last.length === 0)
				batch.top = page.calls.map((call) => call.id);
			const old = page.calls.findIndex(isOld);
			const recent = old < 0 ? page.calls : page.calls.slice(0, old);
			const taken = recent.slice(0, room - batch.calls.length);
			batch.calls.push(...taken);
			if (taken.length < recent.length) batch.next = position(page.cursor);
			else if (old >= 0 || page.next === undefined) batch.next = undefined;
			else if (cursors.has(page.next)) throw repeatedCursor(context, page.next);
			else {
				cursors.add(page.next);
				batch.next = position(page.next);
			}
		}
	} catch (error) {
		batch.failure = error as Error;
	}
	return batch;
}

function repeatedCursor(context: VoiceAgentContext, cursor: string): Error {
	return dataProblemError(context.getNode(), {
		message: `The Voice Agent API repeated a pagination cursor for GET /calls (${cursor.slice(0, 40)}); the backfill stopped instead of looping`,
	});
}
