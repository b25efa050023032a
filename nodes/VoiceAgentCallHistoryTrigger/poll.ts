import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { isLive } from '../shared/callStatus';
import { dataProblemError } from '../shared/errors';
import type { CallSummary } from '../shared/types';
import { readBackfill } from './backfill';
import { readEndedCalls, withDedupeKey } from './ended';
import { scanLatestPage, scanNewCalls } from './scan';
import { readSettings, startOfLastDays, type TriggerSettings } from './settings';
import {
	loadState,
	MAX_PENDING,
	mergeSeen,
	storeState,
	type BackfillState,
	type CallHistoryState,
} from './state';

/** Static data of the polls running now in this process: a poll that overlaps one outputs nothing. */
const running = new WeakSet<object>();

/** What a poll took from the list, and where the list stands after it. */
interface Taken {
	/** Calls taken from the backfill (older) then the new ones, each newest first. */
	backfill: CallSummary[];
	fresh: CallSummary[];
	listed: Map<string, CallSummary>;
	seen: string[];
	backfillState?: BackfillState;
	/** Calls were left in the list for a later poll because the pending calls were at their bound. */
	heldBack: boolean;
	failures: Error[];
}

/**
 * The first poll for these settings. Now: the newest page is the position, its calls in progress are
 * pending (Call Ended outputs them when they end). All History and Last Days: a backfill from the top.
 */
async function firstState(
	context: IPollFunctions,
	settings: TriggerSettings,
): Promise<CallHistoryState> {
	if (settings.startFrom === 'now') {
		const latest = await scanLatestPage(context, settings.filter);
		const inProgress = settings.event === 'callEnded' ? latest.filter((call) => isLive(call)) : [];
		return {
			scope: settings.scope,
			seen: mergeSeen(
				latest.map((call) => call.id),
				[],
			),
			pending: inProgress.map((call) => call.id).reverse(),
		};
	}
	const before = settings.startFrom === 'lastDays' ? startOfLastDays(settings.days) : undefined;
	const backfill: BackfillState = before === undefined ? { last: [] } : { last: [], before };
	return { scope: settings.scope, seen: [], pending: [], backfill };
}

/**
 * What this poll takes: the new calls above the position (oldest first), then what room is left from
 * the backfill. It takes at most Max Calls per Poll, and for Call Ended only what the pending calls'
 * bound leaves room for: a call left in the list is not marked as seen, so a later poll takes it.
 */
async function takeCalls(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: CallHistoryState,
): Promise<Taken> {
	const pendingRoom =
		settings.event === 'callEnded' ? MAX_PENDING - state.pending.length : Infinity;
	const room = Math.max(0, Math.min(settings.maxCallsPerPoll, pendingRoom));
	const limitedByPending = pendingRoom < settings.maxCallsPerPoll;
	const taken: Taken = {
		backfill: [],
		fresh: [],
		listed: new Map(),
		seen: state.seen,
		backfillState: state.backfill,
		heldBack: false,
		failures: [],
	};
	if (state.seen.length > 0 || !state.backfill) {
		try {
			const scan = await scanNewCalls(
				context,
				settings.filter,
				state.seen,
				room,
				new Set(state.pending),
			);
			taken.listed = scan.listed;
			// None of the calls seen before is listed any more: start from now, not output the history.
			if (scan.lostPosition) taken.seen = mergeSeen(scan.top, []);
			else {
				taken.fresh = scan.fresh;
				taken.seen = mergeSeen(
					scan.fresh.map((call) => call.id),
					state.seen,
				);
				taken.heldBack = scan.more && limitedByPending;
			}
		} catch (error) {
			// Nothing is lost: the position stays, and the next poll reads the list again.
			taken.failures.push(error as Error);
		}
	}
	const left = room - taken.fresh.length;
	if (state.backfill && left > 0) {
		const batch = await readBackfill(context, settings.filter, state.backfill, left);
		taken.backfill = batch.calls;
		taken.backfillState = batch.next;
		if (batch.top && taken.seen.length === 0) taken.seen = mergeSeen(batch.top, []);
		if (batch.failure) taken.failures.push(batch.failure);
		for (const call of batch.calls) taken.listed.set(call.id, call);
	}
	if (taken.backfillState && limitedByPending && room - taken.fresh.length <= taken.backfill.length)
		taken.heldBack = true;
	return taken;
}

function pendingBoundError(context: IPollFunctions, pending: number): Error {
	return dataProblemError(context.getNode(), {
		message: `${pending.toLocaleString('en-US')} calls are waiting to be output (in progress, or not read yet): the trigger keeps at most ${MAX_PENDING.toLocaleString('en-US')}, so newer calls wait in the list until some of these end`,
		description:
			'No call is lost: the trigger takes newer calls again as soon as there is room. If this many calls are really in progress at once, split the trigger by agent (Agent), so that each keeps fewer; if they cannot be read, check the service.',
	});
}

async function runPoll(
	context: IPollFunctions,
	settings: TriggerSettings,
	staticData: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	let state = loadState(staticData, settings.scope);
	if (!state) {
		state = await firstState(context, settings);
		if (!state.backfill) {
			storeState(staticData, state);
			return null;
		}
	}
	const taken = await takeCalls(context, settings, state);
	const newestFirst = [...taken.fresh, ...taken.backfill];
	let items: IDataObject[];
	let pending: string[] = [];
	if (settings.event === 'newCall') {
		const byId = new Map([...newestFirst].reverse().map((call) => [call.id, call]));
		items = [...byId.values()].map((call) => withDedupeKey(call, 'new_call'));
	} else {
		// A call is read and output once per poll, even if the list showed it twice (listed late, a shifted page).
		const order = [
			...new Set([...state.pending, ...[...newestFirst].reverse().map((call) => call.id)]),
		];
		const outcome = await readEndedCalls(context, settings, order, taken.listed);
		({ items, pending } = outcome);
		if (outcome.failure) taken.failures.push(outcome.failure);
	}
	const next: CallHistoryState = { scope: settings.scope, seen: taken.seen, pending };
	storeState(staticData, taken.backfillState ? { ...next, backfill: taken.backfillState } : next);

	// An error only when the poll could output nothing, so that n8n shows it; what failed is kept.
	if (items.length === 0) {
		const [failure] = taken.failures;
		if (failure) throw failure;
		if (taken.heldBack) throw pendingBoundError(context, pending.length);
		return null;
	}
	return [context.helpers.returnJsonArray(items)];
}

/**
 * One poll: outputs each call that ended (or each new call), at least once and, unless n8n stops
 * between an execution's start and the save of the static data, exactly once, across polls and
 * restarts. n8n saves the state with the workflow when the poll outputs calls; a poll that outputs
 * nothing leaves it in memory, and a restart before the next output only makes a poll read the same
 * calls again.
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
