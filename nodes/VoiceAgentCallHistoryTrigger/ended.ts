import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { callsNotFetchedError, getCallsInFull } from '../shared/api/callsInFull';
import { hasEnded, isLive } from '../shared/callStatus';
import { isNotFound } from '../shared/errors';
import { withTranscriptFormat } from '../shared/parameters/transcriptFormat';
import type { CallSummary } from '../shared/types';
import { normalStatus, type TriggerSettings } from './settings';

/** GET /call in flight at once for the calls that ended; the fan-out adapts below it. */
const MAX_CONCURRENCY = 5;

/**
 * The key a Remove Duplicates step compares: the same call and event give the same key in every poll,
 * after restarts too.
 */
export function withDedupeKey(call: IDataObject, event: 'call_ended' | 'new_call'): IDataObject {
	return { ...call, dedupe_key: `${String(call.id)}:${event}` };
}

/** Whether an ended call's status is one End Statuses asks for (all of them when it is empty). */
export function wanted(settings: TriggerSettings, call: { status?: unknown }): boolean {
	return settings.endStatuses.size === 0 || settings.endStatuses.has(normalStatus(call.status));
}

export interface EndedOutcome {
	/** The calls that ended, in full, in the order given. */
	items: IDataObject[];
	/** The calls still to output: in progress, or not read. */
	pending: string[];
	/** What could not be read; such calls stay pending. */
	failure?: Error;
}

/**
 * Call Ended over the calls taken, in the order given (pending first, then new ones, oldest first). A
 * call listed in progress stays pending without a request, one listed with an end status End Statuses
 * leaves out is let go without one; the others are read in full (GET /call). A call that ended is
 * output, or let go when its status is left out; one in progress or not read stays pending; one the
 * service says no longer exists (its own 404) is let go.
 */
export async function readEndedCalls(
	context: IPollFunctions,
	settings: TriggerSettings,
	order: readonly string[],
	listed: ReadonlyMap<string, CallSummary>,
): Promise<EndedOutcome> {
	const pending = new Set<string>();
	const toFetch: string[] = [];
	for (const id of order) {
		const summary = listed.get(id);
		if (summary && isLive(summary)) pending.add(id);
		else if (!summary || wanted(settings, summary)) toFetch.push(id);
	}
	const { results, failures } = await getCallsInFull(context, toFetch, {
		maxConcurrency: MAX_CONCURRENCY,
		purpose: 'poll',
	});
	const ended = new Map<string, IDataObject>();
	toFetch.forEach((id, index) => {
		const call = results[index];
		if (!call) return;
		if (!hasEnded(call)) pending.add(id);
		else if (wanted(settings, call)) {
			const item = withTranscriptFormat(call, settings.transcriptFormat, {
				systemMessages: settings.systemMessages,
			});
			ended.set(id, withDedupeKey(item, 'call_ended'));
		}
	});
	const unread = failures.filter((failure) => !isNotFound(failure.error));
	for (const failure of unread) pending.add(failure.item);
	return {
		items: order.flatMap((id) => (ended.has(id) ? [ended.get(id) as IDataObject] : [])),
		pending: order.filter((id) => pending.has(id)),
		failure:
			unread.length > 0
				? callsNotFetchedError(context, unread, toFetch.length, {
						remedy: 'They stay pending and are read again at the next poll.',
					})
				: undefined,
	};
}
