import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { hasEnded } from '../shared/callStatus';
import { callsNotFetchedError, getCallsInFull } from '../shared/api/callsInFull';
import { isNotFound } from '../shared/errors';
import { withTranscriptFormat } from '../shared/parameters/transcriptFormat';
import type { CallSummary } from '../shared/types';
import { scanHistory, scanLatestPage, scanNewCalls, type Scan } from './scan';
import { olderThanDays, readSettings, type TriggerSettings } from './settings';
import { loadState, mergeSeen, storeState, type CallHistoryState } from './state';

/** GET /call in flight at once for the calls that ended; the fan-out adapts below it. */
const MAX_CONCURRENCY = 5;

/** Static data of the polls running now in this process: a poll that overlaps one outputs nothing. */
const running = new WeakSet<object>();

/** Where a poll stands after reading the list: the calls to consider now and the calls seen. */
interface Discovery {
	/** Newest first. */
	fresh: CallSummary[];
	/** Every call on the pages read, by ID. */
	listed: Map<string, CallSummary>;
	seen: string[];
}

function discovery(
	fresh: CallSummary[],
	listed: CallSummary[] | Map<string, CallSummary>,
	seenNow: CallSummary[],
	seenBefore: string[] = [],
): Discovery {
	return {
		fresh,
		listed: listed instanceof Map ? listed : new Map(listed.map((call) => [call.id, call])),
		seen: mergeSeen(
			seenNow.map((call) => call.id),
			seenBefore,
		),
	};
}

/** The first poll for these settings: from now on, or a one-time backfill (Start From). */
async function discoverFirst(
	context: IPollFunctions,
	settings: TriggerSettings,
): Promise<Discovery> {
	if (settings.startFrom === 'now') {
		const latest = await scanLatestPage(context, settings.filter);
		// Calls in progress now end after now: Call Ended outputs them when they do.
		const inProgress =
			settings.event === 'callEnded' ? latest.filter((call) => !hasEnded(call)) : [];
		return discovery(inProgress, latest, latest);
	}
	const cutoff = settings.startFrom === 'lastDays' ? olderThanDays(settings.days) : undefined;
	const history = await scanHistory(context, settings.filter, cutoff);
	return discovery(history, history, history);
}

/** A later poll: the calls listed above those seen before. */
function discoverNext(state: CallHistoryState, scan: Scan): Discovery {
	// None of the calls seen before is listed any more: start from now rather than output the history.
	if (scan.lostPosition) return discovery([], scan.listed, scan.fresh);
	return discovery(scan.fresh, scan.listed, scan.fresh, state.seen);
}

interface Outcome {
	items: IDataObject[];
	pending: string[];
	/** What could not be read; such calls stay pending. */
	failure?: Error;
}

/**
 * Call Ended: the pending calls (oldest first), then the new calls (oldest first). A call listed in
 * progress stays pending without a request; the others are read in full (GET /call), and those that
 * ended are output. A call that cannot be read stays pending for the next poll; one that no longer
 * exists (404) is dropped.
 */
async function endedCalls(
	context: IPollFunctions,
	settings: TriggerSettings,
	pending: readonly string[],
	found: Discovery,
): Promise<Outcome> {
	const order = [...new Set([...pending, ...[...found.fresh].reverse().map((call) => call.id)])];
	const toFetch = order.filter((id) => {
		const listed = found.listed.get(id);
		return !listed || hasEnded(listed);
	});
	const { results, failures } = await getCallsInFull(context, toFetch, {
		maxConcurrency: MAX_CONCURRENCY,
		purpose: 'poll',
	});
	const ended = new Map<string, IDataObject>();
	toFetch.forEach((id, index) => {
		const call = results[index];
		if (call && hasEnded(call))
			ended.set(id, withTranscriptFormat(call, settings.transcriptFormat));
	});
	const gone = new Set(failures.filter((f) => isNotFound(f.error)).map((f) => f.item));
	const unread = failures.filter((failure) => !gone.has(failure.item));
	return {
		items: order.flatMap((id) => (ended.has(id) ? [ended.get(id) as IDataObject] : [])),
		pending: order.filter((id) => !ended.has(id) && !gone.has(id)),
		failure:
			unread.length > 0
				? callsNotFetchedError(context, unread, toFetch.length, {
						remedy: 'They stay pending and are read again at the next poll.',
					})
				: undefined,
	};
}

async function runPoll(
	context: IPollFunctions,
	settings: TriggerSettings,
	staticData: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	const state = loadState(staticData, settings.scope);
	let found: Discovery;
	let scanError: Error | undefined;
	if (!state) {
		found = await discoverFirst(context, settings);
	} else {
		try {
			found = discoverNext(state, await scanNewCalls(context, settings.filter, state.seen));
		} catch (error) {
			// Nothing is lost: the calls seen stay as they were, and the next poll reads the list again.
			scanError = error as Error;
			found = discovery([], [], [], state.seen);
		}
	}

	const outcome: Outcome =
		settings.event === 'newCall'
			? { items: [...found.fresh].reverse(), pending: [] }
			: await endedCalls(context, settings, state?.pending ?? [], found);
	storeState(staticData, { scope: settings.scope, seen: found.seen, pending: outcome.pending });

	// An error only when the poll could output nothing, so that n8n shows it; what failed is kept.
	if (outcome.items.length === 0) {
		if (scanError) throw scanError;
		if (outcome.failure) throw outcome.failure;
		return null;
	}
	return [context.helpers.returnJsonArray(outcome.items)];
}

/**
 * One poll: outputs each call that ended (or each new call) once, across polls and restarts. The state
 * is saved by n8n with the workflow when the poll outputs calls; a poll that outputs nothing leaves it
 * in memory, and a restart before the next output only makes a poll read the same calls again.
 */
export async function pollCallHistory(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const settings = await readSettings(context);
	const staticData = context.getWorkflowStaticData('node');
	if (running.has(staticData)) return null;
	running.add(staticData);
	try {
		return await runPoll(context, settings, staticData);
	} finally {
		running.delete(staticData);
	}
}
