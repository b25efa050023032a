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
import type { CallLedger, CallRecord, SkippedCall } from '../model';
import { advance } from '../records/callLedger';
import { waitedForRinging } from './ringingElsewhere';

/** Long enough for redelivered events and a prompt *Retry execution*. */
const DEFAULT_WINDOW_MINUTES = 15;
const FIRST_VERSION = 1.2;
const FIELD = 'Skip If Called Within (Minutes)';

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
 * Why the newest call to the number counts as recent, or undefined. Its age is measured on the service's clock
 * (Date header minus `created_at`), never n8n's; an age that cannot be read counts as recent.
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

/** Thrown just before POST /call when a look again finds the number called meanwhile: nothing is sent. */
export class CallFoundMeanwhile extends NodeOperationError {
	constructor(
		node: INode,
		readonly found: SkippedCall,
	) {
		super(node, found.skipReason);
	}
}

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
 * From attempt 2 the skip window gives way to the lead's record of its last call: the attempt is placed only
 * while that call is the newest to the number and has ended, so a due attempt is never taken for a re-run.
 */
export async function attemptPlacedAlready(
	context: IExecuteFunctions,
	filter: CallFilter,
	item: {
		attempt: number;
		previousCallId: string;
		callContext: string;
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
	// A newer call is this attempt's own (its run's outcome lost) when this execution placed it for the
	// attempt, or it has the item's Context (sameContext: an empty one is no evidence).
	const own = call.id !== previousCallId && (item.placedHere(call.id) || sameContext(found, item));
	return { ...found, skipped: true, skipReason, ...(own ? { ownAttempt: true as const } : {}) };
}

export function calledSinceReason(call: CallSummary, attempt: number, previousCallId: string) {
	return `${callOf(call)} is newer than attempt ${attempt - 1}'s call ${previousCallId}: the number was called since, so attempt ${attempt} was not placed again`;
}

/** An empty Context is no evidence: any call without one (a manual call, another workflow's) has it. */
export function sameContext(call: Call, item: { callContext: string }): boolean {
	return item.callContext !== '' && (call.context ?? '') === item.callContext;
}

function placedForAttempt(
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

/** Notes the call found instead of placing one; an `ownAttempt` is given back as its own on every re-run. */
export function recordFound(record: CallRecord, found: SkippedCall): void {
	advance(record, 'skipped', found.id);
	record.why = found.skipReason;
	if (found.ownAttempt === true) record.own = true;
}

/** A look-up older than this may have missed a call another process placed meanwhile. */
const LOOK_UP_FRESH_MS = 1_000;

interface RecentCheck {
	account: string;
	filter: CallFilter;
	body: { to: string; context?: string };
	itemIndex: number;
	windowMinutes: number;
	attempt: number;
	previousCallId?: string;
}

/**
 * The skip window's look-up, or from attempt 2 the previous attempt's call, after any call ringing elsewhere
 * with no number (ringingElsewhere.ts). `recheck` looks again just before sending when the last look is not
 * fresh: a call placed elsewhere while this item waited is found, however the wait came about.
 */
export function recentLookUp(context: IExecuteFunctions, ledger: CallLedger, item: RecentCheck) {
	const { previousCallId, attempt, body } = item;
	let lookedUpAt = 0;
	const byNumber = async () => {
		lookedUpAt = Date.now();
		return previousCallId
			? await attemptPlacedAlready(context, item.filter, {
					...{ attempt, previousCallId, callContext: body.context ?? '' },
					placedHere: (callId) => placedForAttempt(ledger, callId, { to: body.to, attempt }),
				})
			: await recentlyCalled(context, item.filter, item.windowMinutes);
	};
	const lookUp = async () => {
		const found = await byNumber();
		if (found || (previousCallId === undefined && item.windowMinutes <= 0)) return found;
		const check = { ...item, to: body.to };
		return (await waitedForRinging(context, check)) ? await byNumber() : undefined;
	};
	const recheck = async () =>
		Date.now() - lookedUpAt >= LOOK_UP_FRESH_MS ? await lookUp() : undefined;
	return { lookUp, recheck };
}
