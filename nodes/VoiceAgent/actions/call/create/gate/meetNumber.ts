import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall, newestCall } from '../../../../../shared/api/calls';
import { LONGEST_CALL_MS, surelyEnded } from '../../../../../shared/callStatus';
import { cancelSignalOf, throwIfCancelled } from '../../../../../shared/transport/cancel';
import type { Call } from '../../../../../shared/types';
import { oncePerRun } from '../../../../../shared/runCache';
import {
	claimSlot,
	markEnded,
	slotOf,
	type CallLedger,
	type CallRecord,
} from '../records/callLedger';
import { recordCaller } from '../records/caller';
import {
	calledSinceReason,
	recentCallReason,
	recentlyCalled,
	sameContext,
	type SkippedCall,
} from '../guards/skipRecentlyCalled';
import { mayHaveBeenPlacedError } from '../placing/placedBefore';
import type { ItemCall } from '../placing/placeOnce';
import { callEnded, letGo, waitForHolder, type GateEntry } from './numberGate';

/*
 * What an item does when its number is held by someone else: an earlier item of its run, another
 * execution of the process (or another use of the node in this one). It outputs that call as skipped,
 * naming it; it fails with "may have been placed" when that call's outcome is unknown; it decides again
 * when the holder placed nothing.
 */

/** What an item reads from the gate: an outcome to output, or `again` (decide from the top). */
export type Met = Call | SkippedCall | 'again';

/** Who placed the number first, as the outcome of the item that met it says. */
interface PlacedFirst {
	placedBy: string;
	skipReason(callId: string): string;
}

const earlierItem = (to: string, itemIndex: number): PlacedFirst => ({
	placedBy: 'an earlier item of this run',
	skipReason: (callId) =>
		`Item ${itemIndex} of this run called ${to} already (call ${callId}), so it was not called again`,
});

function placedFirstBy(
	context: IExecuteFunctions,
	ledger: CallLedger,
	holder: { executionId: string; ledger: CallLedger; run?: number; itemIndex: number },
	to: string,
	run: number | undefined,
): PlacedFirst {
	if (holder.ledger === ledger && run !== undefined && holder.run === run)
		return earlierItem(to, holder.itemIndex);
	if (holder.ledger === ledger && run !== undefined && holder.run !== undefined)
		return {
			placedBy: 'an earlier run of this node in this execution',
			skipReason: (callId) =>
				`An earlier run of this node in this execution placed the call to ${to} (call ${callId}), so it was not called again`,
		};
	const mine = context.getExecutionId();
	const who =
		holder.ledger === ledger
			? 'another use of this node in this execution'
			: holder.executionId === mine || holder.executionId === ''
				? 'another execution'
				: `execution ${holder.executionId}`;
	const Who = who.charAt(0).toUpperCase() + who.slice(1);
	return {
		placedBy: `${who}, running at the same time`,
		skipReason: (callId: string) =>
			`${Who}, running at the same time, placed the call to ${to} (call ${callId}), so it was not called again`,
	};
}

/**
 * The records of the run by number and caller: a later item with the number takes the first one's
 * outcome, whatever the skip window (one call per number and node run). In memory, beside the ledger.
 */
export function runRecords(
	ledger: CallLedger,
): Map<string, { record: CallRecord; itemIndex: number }> {
	return oncePerRun(ledger, 'runRecords', () => new Map());
}

/**
 * The item's outcome after the first record's: undefined when the first placed nothing (decide again);
 * its call as skipped (remembered as this item's, so a later *Retry execution* never dials it); an error
 * when its outcome is unknown.
 */
export async function takeOutcome(
	context: IExecuteFunctions,
	ledger: CallLedger,
	item: ItemCall,
	first: { record: CallRecord; by: PlacedFirst; call?: Call; heldUntil?: number },
): Promise<Call | SkippedCall | undefined> {
	const { record, by } = first;
	if (record.state === 'notSent') return undefined;
	const slot = slotOf(context, item.itemIndex, item.body.to);
	const base = {
		...recordCaller(item.caller),
		to: item.body.to,
		executionId: context.getExecutionId(),
		...(item.attempt > 1 ? { attempt: item.attempt } : {}),
	};
	if (record.callId === undefined) {
		// The same possible call as the first one's: counted once against Max Calls per Run.
		claimSlot(ledger, slot, { ...base, state: 'unknown', sameCallAs: 'another call' });
		throw mayHaveBeenPlacedError(context, item, record, by.placedBy, first.heldUntil);
	}
	const skipReason =
		record.state === 'skipped' ? (record.why as string) : by.skipReason(record.callId);
	// This very attempt's call (Call Again): every re-run gives it back as the attempt's own.
	const own = record.own === true ? { own: true } : {};
	claimSlot(ledger, slot, {
		...base,
		state: 'skipped',
		callId: record.callId,
		why: skipReason,
		...own,
	});
	const call = first.call ?? (await getCall(context, record.callId));
	return { ...call, skipped: true, skipReason, ...(record.own ? { ownAttempt: true } : {}) };
}

/** A call the item's run saw end: its record, and the process's gate (only a call that surely ended). */
export function callSeenEnded(ledger: CallLedger, account: string, call: Call): void {
	markEnded(ledger, call.id);
	callEnded(account, call);
}

/**
 * The run's earlier item with the number, if it decided: its outcome to take, or undefined (none, or
 * nothing placed), told without awaiting so that the caller's checks and its gate entry stay one step.
 */
export function earlierInRun(
	context: IExecuteFunctions,
	ledger: CallLedger,
	item: ItemCall,
	numberKey: string | undefined,
): Promise<Call | SkippedCall | undefined> | undefined {
	const first = numberKey === undefined ? undefined : runRecords(ledger).get(numberKey);
	if (!first || ['claimed', 'sent', 'notSent'].includes(first.record.state)) return undefined;
	const by = earlierItem(item.body.to, first.itemIndex);
	return takeOutcome(context, ledger, item, { record: first.record, by });
}

/**
 * Meets the number held by `met`. While its holder decides or places, waits (holding no slot, ending at
 * once when this execution is stopped) and then decides again. A placed call is asked for by ID: in
 * progress, or begun within the item's skip window, it is output as skipped; seen to end, the number is
 * free again once the window allows (`forget`).
 */
export async function meetNumber(
	context: IExecuteFunctions,
	ledger: CallLedger,
	item: ItemCall,
	met: GateEntry,
	run: number | undefined,
): Promise<Met> {
	const { holder } = met;
	const by = placedFirstBy(context, ledger, holder, item.body.to, run);
	const slot = slotOf(context, item.itemIndex, item.body.to);
	if (met.state !== 'placed') {
		await waitForHolder(met, cancelSignalOf(context));
		throwIfCancelled(context);
		// This very slot's record (a concurrent use of the tool): the ledger says what it placed. A call
		// placed by ID is met again, as placed; an unnamed one is the holder's outcome (may have been placed).
		if (ledger.records[slot] === holder.record || met.callId !== undefined) return 'again';
		return (await takeOutcome(context, ledger, item, { record: holder.record, by })) ?? 'again';
	}
	// A call that may have been placed, which nobody could name (no answer, a stop while it was in flight,
	// a 2xx without an ID): the agent's newest call to the number, not surely ended, is taken as it. Not
	// found, it may still ring (a service may list a ringing call without its number, or lag behind): the
	// number stays held until the bound of the longest call is over.
	if (met.callId === undefined) {
		const { call: newest, serviceDate } = await newestCall(context, item.filter);
		if (newest !== undefined && !surelyEnded(newest)) {
			const record = { ...holder.record, callId: newest.id, state: 'placed' } as CallRecord;
			return (await takeOutcome(context, ledger, item, { record, by })) as Call;
		}
		// An ended call within the item's skip window is skipped as the window says, whichever call it is.
		const why =
			newest && item.previousCallId === undefined
				? recentCallReason(newest, serviceDate, item.windowMinutes)
				: undefined;
		if (newest && why) {
			const record = { ...holder.record, callId: newest.id, state: 'skipped', why } as CallRecord;
			return (await takeOutcome(context, ledger, item, { record, by })) as Call;
		}
		const unknown = { ...holder.record, callId: undefined, state: 'unknown' } as CallRecord;
		const heldUntil = (met.placedAt as number) + LONGEST_CALL_MS;
		return (await takeOutcome(context, ledger, item, { record: unknown, by, heldUntil })) as Call;
	}
	const callId = met.callId;
	// The call as the service reads it back by ID. An answer that cannot be read (5xx, a proxy's page, a
	// 404 of a call the service named) keeps it in progress: only an end frees the number. A call under
	// that ID is this call, however the service spells its number.
	let call: Call;
	try {
		call = await getCall(context, callId);
	} catch {
		throwIfCancelled(context);
		call = { id: callId, to: item.body.to } as Call;
	}
	const ended = surelyEnded(call);
	if (ended) callEnded(item.account, call);
	const sameRun = by.placedBy === 'an earlier item of this run';
	// From attempt 2, a call newer than the previous attempt's is the number called since: this attempt's
	// own when this execution placed it for the attempt, or it has the item's Context (skipRecentlyCalled.ts).
	const { previousCallId } = item;
	if (previousCallId !== undefined && callId !== previousCallId && !sameRun) {
		const own =
			(holder.ledger === ledger && (holder.record.attempt ?? 1) === item.attempt) ||
			sameContext(call, { callContext: item.body.context ?? '' });
		const why = calledSinceReason({ ...call, to: item.body.to }, item.attempt, previousCallId);
		const found = { ...holder.record, callId, state: 'skipped', why, own } as CallRecord;
		return (await takeOutcome(context, ledger, item, { record: found, by, call })) as Call;
	}
	// The previous attempt's call lets its attempt go once ended (the list decides); so does any call
	// outside the item's skip window.
	const withinWindow =
		previousCallId === undefined &&
		Date.now() - (met.placedAt as number) < item.windowMinutes * 60_000;
	if (!ended || withinWindow || sameRun) {
		// An ended call within the window is said as the skip window says it, once the list shows it.
		const listed =
			ended && !sameRun
				? await recentlyCalled(context, item.filter, item.windowMinutes)
				: undefined;
		const record = listed
			? ({
					...holder.record,
					callId: listed.id,
					state: 'skipped',
					why: listed.skipReason,
				} as CallRecord)
			: ({ ...holder.record, callId, state: 'placed' } as CallRecord);
		return (await takeOutcome(context, ledger, item, {
			record,
			by,
			...(record.callId === callId ? { call } : {}),
		})) as Call;
	}
	letGo(met);
	return 'again';
}
