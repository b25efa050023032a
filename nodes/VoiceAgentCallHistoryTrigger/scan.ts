import { callPages, type CallFilter } from '../shared/api/calls';
import type { RequestOptions, VoiceAgentContext } from '../shared/transport/types';
import type { CallSummary } from '../shared/types';

/** What reading the call list, newest first, found. */
export interface Scan {
	/** Calls not seen before, newest first. */
	fresh: CallSummary[];
	/** Every call on the pages read, by ID: a pending call listed there needs no request of its own. */
	listed: Map<string, CallSummary>;
	/** The list ended without showing any call seen before (e.g. the service dropped them). */
	lostPosition: boolean;
}

const POLL: RequestOptions = { purpose: 'poll' };

/**
 * Pages the call list newest first until the first page that holds a call seen before, so a poll costs
 * ceil(new/100) list requests, never a read of the history. On that page, a call not seen before that
 * is listed above a seen one is new too: it was listed late (the list is ordered by creation).
 */
export async function scanNewCalls(
	context: VoiceAgentContext,
	filter: CallFilter,
	seen: readonly string[],
): Promise<Scan> {
	const remembered = new Set(seen);
	const fresh: CallSummary[] = [];
	const listed = new Map<string, CallSummary>();
	const addFresh = (call: CallSummary) => {
		if (!remembered.has(call.id) && !listed.has(call.id)) fresh.push(call);
	};
	for await (const page of callPages(context, filter, POLL)) {
		let lastSeen = -1;
		page.forEach((call, index) => {
			if (remembered.has(call.id)) lastSeen = index;
		});
		for (const call of lastSeen < 0 ? page : page.slice(0, lastSeen)) addFresh(call);
		for (const call of page) listed.set(call.id, call);
		if (lastSeen >= 0) return { fresh, listed, lostPosition: false };
	}
	return { fresh, listed, lostPosition: seen.length > 0 };
}

/** The newest page of the list: where a trigger that starts from now begins. */
export async function scanLatestPage(
	context: VoiceAgentContext,
	filter: CallFilter,
): Promise<CallSummary[]> {
	for await (const page of callPages(context, filter, POLL)) return page;
	return [];
}

/**
 * The calls of the list, newest first, down to the first one before the cutoff of Start From, or the
 * whole history without one.
 */
export async function scanHistory(
	context: VoiceAgentContext,
	filter: CallFilter,
	isBeforeCutoff: (call: CallSummary) => boolean = () => false,
): Promise<CallSummary[]> {
	const calls: CallSummary[] = [];
	const ids = new Set<string>();
	for await (const page of callPages(context, filter, POLL)) {
		for (const call of page) {
			if (isBeforeCutoff(call)) return calls;
			if (ids.has(call.id)) continue;
			ids.add(call.id);
			calls.push(call);
		}
	}
	return calls;
}
