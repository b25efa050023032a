import { callPages, type CallFilter } from '../shared/api/calls';
import { MAX_PAGE_SIZE } from '../shared/transport/pagination';
import type { RequestOptions, VoiceAgentContext } from '../shared/transport/types';
import type { CallSummary } from '../shared/types';

/** What reading the call list, newest first, down to the calls seen before found. */
export interface Scan {
	/** The oldest calls not seen before, at most the room given, newest first. */
	fresh: CallSummary[];
	/** More calls not seen before are listed above `fresh`: a later poll takes them. */
	more: boolean;
	/** Calls on the pages read that the poll may need (the fresh ones, the pending ones), by ID. */
	listed: Map<string, CallSummary>;
	/** IDs of the first page: the position when it is lost. */
	top: string[];
	/** The list ended without showing any call seen before (e.g. the service dropped them). */
	lostPosition: boolean;
}

export const POLL: RequestOptions = { purpose: 'poll' };

/**
 * Pages the call list newest first until the first page that holds a call seen before, so a poll costs
 * ceil(new/100) list requests, never a read of the history. On that page, a call not seen before that
 * is listed above a seen one is new too: it was listed late (the list is ordered by creation). Only the
 * oldest `room` new calls are kept (the others wait for a later poll), so memory stays bounded. Pending
 * calls listed on the pages read need no GET /call of their own.
 */
export async function scanNewCalls(
	context: VoiceAgentContext,
	filter: CallFilter,
	seen: readonly string[],
	room: number,
	pending: ReadonlySet<string>,
): Promise<Scan> {
	const remembered = new Set(seen);
	const scan: Scan = { fresh: [], more: false, listed: new Map(), top: [], lostPosition: false };
	const kept = new Set<string>();
	const addFresh = (call: CallSummary) => {
		if (remembered.has(call.id) || kept.has(call.id) || pending.has(call.id)) return;
		kept.add(call.id);
		scan.fresh.push(call);
		if (scan.fresh.length > room) {
			kept.delete((scan.fresh.shift() as CallSummary).id);
			scan.more = true;
		}
	};
	// Past the position, pages go on only while they can show pending calls more cheaply than a GET /call
	// each: while more than a page of them is not listed yet, at most a page per ten pending calls.
	const mostExtraPages = Math.ceil(pending.size / 10);
	let extraPages = 0;
	let reached = false;
	for await (const page of callPages(context, filter, POLL)) {
		if (scan.top.length === 0) scan.top = page.map((call) => call.id);
		for (const call of page) if (pending.has(call.id)) scan.listed.set(call.id, call);
		if (reached) extraPages++;
		else {
			let lastSeen = -1;
			page.forEach((call, index) => {
				if (remembered.has(call.id)) lastSeen = index;
			});
			for (const call of lastSeen < 0 ? page : page.slice(0, lastSeen)) addFresh(call);
			reached = lastSeen >= 0;
		}
		const unlisted = pending.size - scan.listed.size;
		if (reached && (unlisted <= MAX_PAGE_SIZE || extraPages >= mostExtraPages)) break;
	}
	scan.lostPosition = !reached && seen.length > 0;
	return finish(scan);
}

function finish(scan: Scan): Scan {
	for (const call of scan.fresh) scan.listed.set(call.id, call);
	return scan;
}

/** The newest page of the list: where a trigger that starts from now begins. */
export async function scanLatestPage(
	context: VoiceAgentContext,
	filter: CallFilter,
): Promise<CallSummary[]> {
	for await (const page of callPages(context, filter, POLL)) return page;
	return [];
}
