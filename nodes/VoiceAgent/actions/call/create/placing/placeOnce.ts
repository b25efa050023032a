import type { IExecuteFunctions } from 'n8n-workflow';

import type { CallFilter, NewCall } from '../../../../../shared/api/calls';
import { asNodeError } from '../../../../../shared/errors';
import type { Call } from '../../../../../shared/types';
import type { InputValidator } from '../../../../../shared/validation';
import { runsAsTool } from '../../allowedDestinations';
import {
	advance,
	claimSlot,
	ledgerOf,
	runIndexOf,
	slotOf,
	type CallLedger,
	type CallRecord,
} from '../records/callLedger';
import { recordCaller, sameCaller, type Caller } from '../records/caller';
import { deferralOf, type ItemHours } from '../callingHours/option';
import { readHour, takeHourCall, type HourBudget, type HourRead } from '../guards/callsPerHour';
import { flightOf, startFlight, type Flight } from '../records/flights';
import { checkCallLimit } from '../guards/maxCallsPerRun';
import { mayHaveBeenPlacedError, placedBefore, sameNumberOutcome } from './placedBefore';
import { claimedBy, claimNumber, claimOf } from '../records/processClaims';
import {
	attemptPlacedAlready,
	placedForAttempt,
	recentlyCalled,
	recordFound,
	type SkippedCall,
} from '../guards/skipRecentlyCalled';

/** One item's call, its input checked and its agent resolved. */
export interface ItemCall {
	body: NewCall;
	/** Who places the call: another agent (or number to call from) is another call. */
	caller: Caller;
	/** The agent's calls to the number. */
	filter: CallFilter;
	itemIndex: number;
	/** Max Calls per Run; 0: no limit. */
	maxCalls: number;
	/** Skip Numbers Called in the Last (Minutes); 0: off. */
	windowMinutes: number;
	/** The lead's attempt (Call Again), 1 without it: another attempt is another call. */
	attempt: number;
	/** From attempt 2: the call of the attempt before. */
	previousCallId?: string;
	/** Calling Hours: no call starts outside them. */
	hours?: ItemHours;
	/** The number's claim in this n8n process (processClaims.ts): account, agent, number. */
	claimKey: string;
	/** Max Calls per Hour, when on. */
	hourBudget?: HourBudget;
}

/** Looks again whether the number was called meanwhile (the skip window, or the attempt placed). */
export type Recheck = () => Promise<SkippedCall | undefined>;

/**
 * Sends POST /call once for the item, moving its record forward (placeCall.ts); `recheck` is for just
 * before sending, after a wait for the pace.
 */
type Place = (record: CallRecord, recheck: Recheck) => Promise<Call | SkippedCall>;

/** What an earlier record of the item's slot says, read without awaiting anything. */
type Earlier =
	/** Being placed right now by a concurrent use: wait for it, then look again. */
	| { wait: Flight }
	/** Placed (or found as skipped) before: output it. */
	| { placed: CallRecord }
	/** Sent before, outcome not known: never dial again. */
	| { unknown: CallRecord }
	/** Nothing placed for this call yet: dial. */
	| undefined;

function earlierRecord(
	context: IExecuteFunctions,
	ledger: CallLedger,
	item: ItemCall,
	slot: string,
): Earlier {
	const record = ledger.records[slot];
	const sameCall =
		record?.to === item.body.to &&
		(record.attempt ?? 1) === item.attempt &&
		(runsAsTool(context) || sameCaller(record, item.caller));
	if (!record || !sameCall) return undefined;
	const flight = flightOf(ledger, slot);
	if (flight) return { wait: flight };
	if (record.callId !== undefined) return { placed: record };
	// Claimed and not sent (a try that stopped before sending) placed nothing; neither did a refusal.
	if (['claimed', 'notSent', 'skipped'].includes(record.state)) return undefined;
	return { unknown: record };
}

/**
 * Places the item's call unless it was placed already, whatever runs the node again or at the same
 * time: an earlier try or a concurrent use of the tool gives back its call, an earlier execution's call
 * to the number within the window is output marked as skipped, and Max Calls per Run is checked. The
 * record is claimed synchronously, in the same step as every check that reads the ledger, so uses of
 * the node running at the same time never both pass a check. `place` sends POST /call once.
 */
export async function placeOnce(
	context: IExecuteFunctions,
	validate: InputValidator,
	item: ItemCall,
	place: Place,
): Promise<Call | SkippedCall> {
	const ledger = ledgerOf(context, item.itemIndex);
	const slot = slotOf(context, item.itemIndex, item.body.to);
	// One call per number and node run, whatever the skip window: a later item waits for the first one.
	const numberKey = runsAsTool(context)
		? undefined
		: `${runIndexOf(context)}|${item.caller.from}>${item.body.to}`;
	const executionId = context.getExecutionId();
	let hourRead: HourRead | undefined;
	// Every check below reads the ledger and ends in an await only to look again from the top: from the
	// top of the loop to the claim nothing awaits, so the checks and the claim are one step.
	for (;;) {
		// A read of the hour counts only in the step right after it: any other wait reads again.
		const read = hourRead;
		hourRead = undefined;
		const earlier = earlierRecord(context, ledger, item, slot);
		if (earlier && 'wait' in earlier) {
			await earlier.wait.settled;
			continue;
		}
		if (earlier && 'placed' in earlier) return await placedBefore(context, item, earlier.placed);
		if (earlier)
			throw mayHaveBeenPlacedError(context, item, earlier.unknown, 'an earlier run of this node');
		const first = numberKey ? flightOf(ledger, numberKey) : undefined;
		if (first) {
			const outcome = await sameNumberOutcome(context, ledger, item, slot, first);
			if (outcome) return outcome;
			continue;
		}
		// Another execution of this process placing the number right now: wait, take its outcome.
		const other = claimOf(item.claimKey);
		if (other) {
			const by = claimedBy(other, { executionId, ledger }, item.body.to);
			const outcome = await sameNumberOutcome(context, ledger, item, slot, other, by);
			if (outcome) return outcome;
			continue;
		}
		// Outside Calling Hours nothing is claimed: a later run inside them may place the call.
		const deferred = deferralOf(context.getNode(), item.hours, item.body.to, Date.now());
		if (deferred) throw deferred;
		checkCallLimit(ledger, validate, item.maxCalls, item.body.to);
		if (item.hourBudget && !read) {
			// The only await before the claim: the checks run again from the top with the list read.
			hourRead = await readHour(context, item.hourBudget, item.body.to);
			continue;
		}
		const hourCall = takeHourCall(item.hourBudget, read, validate, item.body.to);
		const record: CallRecord = {
			...recordCaller(item.caller),
			to: item.body.to,
			state: 'claimed',
			executionId,
			...(runsAsTool(context) ? {} : { run: runIndexOf(context) }),
			...(item.attempt > 1 ? { attempt: item.attempt } : {}),
		};
		claimSlot(ledger, slot, record);
		const flight = startFlight(ledger, [slot, numberKey], item.itemIndex, record);
		const claim = claimNumber(item.claimKey, { executionId, ledger }, item.itemIndex, record);
		const land = (call: Call | SkippedCall | undefined) => {
			hourCall.land(record);
			claim.land(call);
			flight.land(call);
		};
		try {
			const { previousCallId } = item;
			const recheck: Recheck = async () =>
				previousCallId
					? await attemptPlacedAlready(context, item.filter, {
							attempt: item.attempt,
							previousCallId,
							callContext: item.body.context ?? '',
							placedHere: (callId) =>
								placedForAttempt(ledger, callId, { to: item.body.to, attempt: item.attempt }),
						})
					: await recentlyCalled(context, item.filter, item.windowMinutes);
			const recent = await recheck();
			if (recent) {
				recordFound(record, recent);
				land(recent);
				return recent;
			}
			const call = await place(record, recheck);
			land(call);
			return call;
		} catch (error) {
			if (record.state === 'claimed') advance(record, 'notSent');
			land(undefined);
			throw asNodeError(context.getNode(), error);
		}
	}
}
