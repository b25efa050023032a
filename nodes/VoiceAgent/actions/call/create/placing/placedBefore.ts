import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall } from '../../../../../shared/api/calls';
import { noAnswerError } from '../../../../../shared/errors';
import type { Call } from '../../../../../shared/types';
import { runsAsTool } from '../../allowedDestinations';
import { claimSlot, slotOf, type CallLedger, type CallRecord } from '../records/callLedger';
import { recordCaller } from '../records/caller';
import type { Flight } from '../records/flights';
import type { ItemCall } from './placeOnce';
import { earlierItem, type PlacedFirst } from '../records/processClaims';
import type { SkippedCall } from '../guards/skipRecentlyCalled';

/*
 * What an item outputs when its call was placed, or is being placed, by someone else: an earlier run of
 * the node (a re-run), an earlier item of the run, or another execution of the process.
 */

/** An earlier attempt's call to the number may have been placed: this item does not dial it again. */
export function mayHaveBeenPlacedError(
	context: IExecuteFunctions,
	{ body, itemIndex }: ItemCall,
	record: CallRecord,
	placedBy: string,
) {
	const unnamed = record.state === 'unnamed';
	const text = {
		message: unnamed
			? `The call to ${body.to} was placed by ${placedBy}, but the service's answer did not name it: not placed again, check the call list [item ${itemIndex}]`
			: `The call to ${body.to} may have been placed by ${placedBy}: not placed again, check the call list [item ${itemIndex}]`,
		description: `${unnamed ? 'The call could not be found in the call list afterwards.' : 'That attempt got no answer from the service, so the node cannot tell whether the call was placed.'} It does not dial again, so that nobody is phoned twice.`,
		itemIndex,
	};
	return noAnswerError(context.getNode(), text, { outcomeUnknown: true });
}

/** The call an earlier attempt placed, read again; marked as skipped unless this very item placed it. */
export async function placedBefore(
	context: IExecuteFunctions,
	item: ItemCall,
	record: CallRecord,
): Promise<Call | SkippedCall> {
	const call = await getCall(context, record.callId as string);
	// A call found as this attempt's own stays its own on every re-run: its end is the attempt's outcome.
	if (record.state === 'skipped')
		return {
			...call,
			skipped: true,
			skipReason: record.why as string,
			...(record.own === true ? { ownAttempt: true as const } : {}),
		};
	if (record.executionId !== context.getExecutionId()) {
		const skipReason = `Execution ${record.executionId}, which this execution retries, placed this call already, so it was not placed again`;
		return { ...call, skipped: true, skipReason, ownAttempt: true };
	}
	// An AI model that asks again learns that the number was called; a workflow's retry gets its call.
	if (!runsAsTool(context)) return call;
	const skipReason = `This tool already called ${item.body.to} in this execution (call ${call.id}), so it was not called again`;
	return { ...call, skipped: true, skipReason };
}

/**
 * A use of the number after the first one's outcome (a later item of the run, another execution of the
 * process): its call as skipped (remembered as this item's, so a later *Retry execution* never dials
 * it), an error when the first one's outcome is unknown, or undefined when the first placed nothing
 * (this item may dial).
 */
export async function sameNumberOutcome(
	context: IExecuteFunctions,
	ledger: CallLedger,
	item: ItemCall,
	slot: string,
	first: Flight,
	placedFirst?: PlacedFirst,
): Promise<Call | SkippedCall | undefined> {
	const { call, record: firstRecord, itemIndex } = await first.settled;
	if (firstRecord.state === 'notSent') return undefined;
	const base = {
		...recordCaller(item.caller),
		to: item.body.to,
		executionId: context.getExecutionId(),
		...(item.attempt > 1 ? { attempt: item.attempt } : {}),
	};
	const by = placedFirst ?? earlierItem(item.body.to, itemIndex);
	if (!call || firstRecord.callId === undefined) {
		// The same possible call as the first one's: its record (this run's, or another execution's)
		// counts it against Max Calls per Run.
		const sameCallAs = placedFirst ? 'another execution' : slotOf(context, itemIndex, item.body.to);
		claimSlot(ledger, slot, { ...base, state: 'unknown', sameCallAs });
		throw mayHaveBeenPlacedError(context, item, firstRecord, by.placedBy);
	}
	const skipReason =
		firstRecord.state === 'skipped' ? (firstRecord.why as string) : by.skipReason(call.id);
	claimSlot(ledger, slot, { ...base, state: 'skipped', callId: call.id, why: skipReason });
	return { ...(await getCall(context, call.id)), skipped: true, skipReason };
}
