import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getCall, newestCall, type CallFilter } from '../../../../../shared/api/calls';
import {
	isLive,
	LONGEST_CALL_MS,
	numberCalled,
	surelyEnded,
} from '../../../../../shared/callStatus';
import { latestInstantOf } from '../../../../../shared/serviceTime';
import type { Call, CallSummary } from '../../../../../shared/types';
import type { InputValidator } from '../../../../../shared/validation';
import { advance, type CallLedger, type CallRecord } from '../records/callLedger';

/** The window of a new node (version 1.2): long enough for redelivered events and a prompt *Retry execution*. */
const DEFAULT_WINDOW_MINUTES = 15;
const FIRST_VERSION = 1.2;
const FIELD = 'Skip If Called Within (Minutes)';

/** Call → Create's guard against the same call placed by two executions (a re-run, a redelivered event). */
export const skipRecentlyCalledProperty: INodeProperties = {
	displayName: FIELD,
	name: 'skipCalledWithinMinutes',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: DEFAULT_WINDOW_MINUTES,
	description:
		'Skips a number this agent called within this many minutes, or is still calling, and outputs that call with "skipped": true. Keep it above 0 so that running the workflow again, or an event that comes twice, never phones anyone twice.',
	displayOptions: { show: { '@version': [{ _cnd: { gte: FIRST_VERSION } }] } },
};

/** Shown when the window is off: then a new execution is free to call every number again. */
export const skipOffNotice: INodeProperties = {
	displayName:
		'With 0, an event that comes twice or a second start of the workflow can phone the same person again. Retry On Fail and retrying an execution stay safe. To skip recent calls, set a number of minutes longer than your longest list takes.',
	name: 'skipOffNotice',
	type: 'notice',
	default: '',
	displayOptions: {
		show: { '@version': [{ _cnd: { gte: FIRST_VERSION } }], skipCalledWithinMinutes: [0] },
	},
};

/** The item's window in minutes; 0 (off) for nodes older than version 1.2. */
export function skipWindowMinutes(
	context: IExecuteFunctions,
	validate: InputValidator,
	itemIndex: number,
): number {
	if (context.getNode().typeVersion < FIRST_VERSION) return 0;
	const value = context.getNodeParameter(
		'skipCalledWithinMinutes',
		itemIndex,
		DEFAULT_WINDOW_MINUTES,
	);
	const minutes = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes < 0) {
		validate.fail(FIELD, `must be a number of minutes, 0 or more (got ${JSON.stringify(value)})`);
	}
	return minutes;
}

/** A call as reasons name it: its number as the service writes it (none while a live call rings). */
const callOf = (call: CallSummary) =>
	`Call ${call.id} of agent ${call.agent_id} to ${numberCalled(call)}`;

const asMinutes = (ms: number) => `${Math.floor(ms / 60_000)} min ${Math.floor(ms / 1000) % 60} s`;

/**
 * Why the newest call to the number counts as recent, or undefined when it does not. Its age is the
 * service's time of answering (Date header) minus its `created_at`: both the service's clock, never
 * n8n's. A call whose age cannot be read counts as recent: the node errs on the side of not phoning.
 */
export function recentCallReason(
	call: CallSummary,
	serviceDate: string | undefined,
	windowMinutes: number,
): string | undefined {
	const of = callOf(call);
	const notAgain = `so it was not called again (${FIELD}: ${windowMinutes})`;
	if (isLive(call)) return `${of} is still in progress, ${notAgain}`;
	const ageMs = Math.max(0, Date.parse(serviceDate ?? '') - latestInstantOf(call.created_at));
	// A status nobody listed, without an end time, may be a call still under way: held for the longest call.
	if (!surelyEnded(call) && !(ageMs >= LONGEST_CALL_MS)) {
		return `${of} has the status ${JSON.stringify(call.status)}, which does not say that it ended, ${notAgain}`;
	}
	if (Number.isNaN(ageMs)) {
		return `${of} began at ${JSON.stringify(call.created_at)}, a time that could not be compared with the service's time of answering (${JSON.stringify(serviceDate ?? null)}), ${notAgain}`;
	}
	if (ageMs < windowMinutes * 60_000) return `${of} began ${asMinutes(ageMs)} ago, ${notAgain}`;
	return undefined;
}

/**
 * A call found instead of placing one. `ownAttempt`: it is this very attempt's call (placed by an
 * earlier execution of the same attempt), so its end is the attempt's outcome; never output.
 */
export type SkippedCall = Call & { skipped: true; skipReason: string; ownAttempt?: true };

/**
 * Thrown from just before POST /call when a look again (the last look being a second old or more) finds
 * that the number was called meanwhile (another execution): the item outputs that call as skipped, nothing
 * is sent.
 */
export class CallFoundMeanwhile extends NodeOperationError {
	constructor(
		node: INode,
		readonly found: SkippedCall,
	) {
		super(node, found.skipReason);
	}
}

/** The agent's recent call to the number, in full and marked as not placed again; undefined: none. */
export async function recentlyCalled(
	context: IExecuteFunctions,
	filter: CallFilter,
	windowMinutes: number,
): Promise<SkippedCall | undefined> {
	if (windowMinutes <= 0) return undefined;
	const { call, serviceDate } = await newestCall(context, filter);
	const skipReason = call && recentCallReason(call, serviceDate, windowMinutes);
	if (!call || !skipReason) return undefined;
	return { ...(await getCall(context, call.id)), skipped: true, skipReason };
}

/**
 * For attempt 2 and later, the skip window is replaced by the lead's own record of its last call: the
 * attempt is placed only while that call is the newest to the number and has ended, so a due next attempt
 * is never mistaken for a re-run, however long ago the last one was. A newer call means the number was
 * called since: nothing is placed. With this item's context (not empty) it is the attempt's own, placed by
 * a run whose outcome never reached the lead (`ownAttempt`).
 */
export async function attemptPlacedAlready(
	context: IExecuteFunctions,
	filter: CallFilter,
	item: {
		attempt: number;
		previousCallId: string;
		callContext: string;
		/** Whether this execution placed the call for this attempt (a loop's earlier pass, say). */
		placedHere: (callId: string) => boolean;
	},
): Promise<SkippedCall | undefined> {
	const { attempt, previousCallId } = item;
	const { call } = await newestCall(context, filter);
	if (!call) return undefined;
	let skipReason: string | undefined;
	if (call.id !== previousCallId) {
		skipReason = calledSinceReason(call, attempt, previousCallId);
	} else if (isLive(call)) {
		skipReason = `${callOf(call)}, attempt ${attempt - 1}, is still in progress, so attempt ${attempt} was not placed`;
	}
	if (!skipReason) return undefined;
	const found = await getCall(context, call.id);
	// A newer call is this attempt's own, placed by a run whose outcome was lost, when this execution placed
	// it for the attempt, or when it has this item's context. An empty Context is no evidence: any other
	// call without one (a manual call, another workflow's) has it.
	const own = call.id !== previousCallId && (item.placedHere(call.id) || sameContext(found, item));
	return { ...found, skipped: true, skipReason, ...(own ? { ownAttempt: true as const } : {}) };
}

/** Why a call newer than the previous attempt's keeps this attempt from being placed. */
export function calledSinceReason(call: CallSummary, attempt: number, previousCallId: string) {
	return `${callOf(call)} is newer than attempt ${attempt - 1}'s call ${previousCallId}: the number was called since, so attempt ${attempt} was not placed again`;
}

/** Whether a call has the item's Context: evidence that it is the item's own only when not empty. */
export function sameContext(call: Call, item: { callContext: string }): boolean {
	return item.callContext !== '' && (call.context ?? '') === item.callContext;
}

/** Whether a record of the ledger placed the call for this attempt to this number. */
export function placedForAttempt(
	ledger: CallLedger,
	callId: string,
	{ to, attempt }: { to: string; attempt: number },
): boolean {
	return Object.values(ledger.records).some(
		(record) =>
			record.callId === callId &&
			record.to === to &&
			(record.attempt ?? 1) === attempt &&
			(record.state === 'placed' || record.state === 'ended' || record.own === true),
	);
}

/**
 * Notes the call found instead of placing one: the number was called already, or (`ownAttempt`) this
 * very attempt's call was found, which every later re-run must give back as the attempt's own.
 */
export function recordFound(record: CallRecord, found: SkippedCall): void {
	advance(record, 'skipped', found.id);
	record.why = found.skipReason;
	if (found.ownAttempt === true) record.own = true;
}
