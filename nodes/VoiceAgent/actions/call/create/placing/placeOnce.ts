import type { IExecuteFunctions } from 'n8n-workflow';

import type { CallFilter, NewCall } from '../../../../../shared/api/calls';
import { asNodeError } from '../../../../../shared/errors';
import type { Call } from '../../../../../shared/types';
import type { InputValidator } from '../../../../../shared/validation';
import { runsAsTool } from '../../allowedDestinations';
import { cancelledError, cancelSignalOf } from '../../../../../shared/transport/cancel';
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
import { readHour, takeHourCall, type HourBudget, type HourCall } from '../guards/callsPerHour';
import { checkCallLimit } from '../guards/maxCallsPerRun';
import { gateFullError, mayHaveBeenPlacedError, placedBefore } from './placedBefore';
import { enterGate, GATE_FULL, isPass, type GatePass } from '../gate/numberGate';
import { waitedForRinging } from '../guards/ringingElsewhere';
import { earlierInRun, meetNumber, runRecords } from '../gate/meetNumber';
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
	/** Skip If Called Within (Minutes); 0: off. */
	windowMinutes: number;
	/** The lead's attempt (Call Again), 1 without it: another attempt is another call. */
	attempt: number;
	/** From attempt 2: the call of the attempt before. */
	previousCallId?: string;
	/** Calling Hours: no call starts outside them. */
	hours?: ItemHours;
	/** The number's key in the process's gate (gate/numberGate.ts): account, caller, number. */
	gateKey: string;
	/** The account's fingerprint (its Base URL and key): another account's call IDs are other calls. */
	account: string;
	/** Max Calls per Hour, when on. */
	hourBudget?: HourBudget;
}

/**
 * Looks again whether the number was called meanwhile (the skip window, or the attempt placed), when
 * the last look is a second old or more: called just before sending, after any wait for a slot or the
 * pace, so a call placed elsewhere while this item waited is found, however the wait came about.
 */
export type Recheck = () => Promise<SkippedCall | undefined>;

/** A look-up older than this may have missed a call another process placed meanwhile. */
const LOOK_UP_FRESH_MS = 1_000;

/**
 * Sends POST /call once for the item, moving its record forward (placeCall.ts), after any wait for a
 * slot; `recheck` is for just before sending. `placing` marks the number's state in the gate once the
 * waits are over.
 */
type Place = (
	record: CallRecord,
	recheck: Recheck,
	placing: () => void,
) => Promise<Call | SkippedCall>;

/** What an earlier record of the item's slot says, read without awaiting anything. */
type Earlier =
	/** Placed (or found as skipped) before: output it. */
	| { placed: CallRecord }
	/** Sent before, outcome not known: never dial again. */
	| { unknown: CallRecord }
	/** Nothing placed for this call yet, or being placed right now (the gate knows): decide. */
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
	if (record.callId !== undefined) return { placed: record };
	// Claimed or sent right now by a concurrent use meets it in the gate; a try that stopped before
	// sending placed nothing; neither did a refusal.
	if (['claimed', 'notSent', 'skipped'].includes(record.state) || heldNow.has(record))
		return undefined;
	return { unknown: record };
}

/** Records whose number this process holds in its gate right now (deciding or placing). */
const heldNow = new WeakSet<CallRecord>();

/**
 * Places the item's call unless it was placed already, whatever runs the node again or at the same
 * time: an earlier try gives back its call, the number held in the process's gate (another execution,
 * an earlier item of the run, a concurrent use of the tool) gives its call as skipped, an earlier
 * execution's call to the number within the window is output marked as skipped, and Max Calls per Run
 * and Max Calls per Hour are checked. The number is entered in the gate synchronously, in the same step
 * as every check that reads the ledger, and before anything that waits (a slot, the pace). `place`
 * sends POST /call once.
 */
export async function placeOnce(
	context: IExecuteFunctions,
	validate: InputValidator,
	item: ItemCall,
	place: Place,
): Promise<Call | SkippedCall> {
	const ledger = ledgerOf(context, item.itemIndex);
	const slot = slotOf(context, item.itemIndex, item.body.to);
	const run = runsAsTool(context) ? undefined : runIndexOf(context);
	// One call per number and node run, whatever the skip window: a later item takes the first's outcome.
	const numberKey = run === undefined ? undefined : `${run}|${item.gateKey}`;
	const executionId = context.getExecutionId();
	// From the top of the loop to the gate's pass nothing awaits: the checks and the pass are one step.
	for (;;) {
		const earlier = earlierRecord(context, ledger, item, slot);
		if (earlier && 'placed' in earlier) return await placedBefore(context, item, earlier.placed);
		if (earlier)
			throw mayHaveBeenPlacedError(context, item, earlier.unknown, 'an earlier run of this node');
		const inRun = earlierInRun(context, ledger, item, numberKey);
		const taken = inRun && (await inRun);
		if (taken) return taken;
		const record: CallRecord = {
			...recordCaller(item.caller),
			to: item.body.to,
			state: 'claimed',
			executionId,
			...(run === undefined ? {} : { run }),
			...(item.attempt > 1 ? { attempt: item.attempt } : {}),
		};
		const holder = { executionId, ledger, run, itemIndex: item.itemIndex, record };
		const entered = enterGate(item.gateKey, holder, Date.now());
		if (entered === GATE_FULL) throw gateFullError(context, item);
		if (!isPass(entered)) {
			const met = await meetNumber(context, ledger, item, entered, run);
			if (met !== 'again') return met;
			continue;
		}
		return await decideAndPlace(
			context,
			validate,
			item,
			{ ledger, slot, numberKey, record },
			{
				pass: entered,
				place,
			},
		);
	}
}

/** The number is this item's in the gate: every check, then POST /call once; the gate told the outcome. */
async function decideAndPlace(
	context: IExecuteFunctions,
	validate: InputValidator,
	item: ItemCall,
	{
		ledger,
		slot,
		numberKey,
		record,
	}: {
		ledger: CallLedger;
		slot: string;
		numberKey: string | undefined;
		record: CallRecord;
	},
	{ pass, place }: { pass: GatePass; place: Place },
): Promise<Call | SkippedCall> {
	let hourCall: HourCall | undefined;
	heldNow.add(record);
	// The record says what the gate keeps: the call placed, a call nobody could name, or nothing.
	const land = () => {
		heldNow.delete(record);
		hourCall?.land(record);
		if (record.callId !== undefined && record.state !== 'skipped') pass.placed(record.callId);
		else if (['sent', 'unnamed', 'unknown'].includes(record.state)) pass.unknown();
		pass.leave();
	};
	try {
		// Outside Calling Hours nothing is placed: a later run inside them may place the call.
		const deferred = deferralOf(context.getNode(), item.hours, item.body.to, Date.now());
		if (deferred) throw deferred;
		checkCallLimit(ledger, validate, item.maxCalls, item.body.to);
		claimSlot(ledger, slot, record);
		if (numberKey !== undefined)
			runRecords(ledger).set(numberKey, { record, itemIndex: item.itemIndex });
		const { previousCallId } = item;
		let lookedUpAt = 0;
		const byNumber = async () => {
			lookedUpAt = Date.now();
			return previousCallId
				? await attemptPlacedAlready(context, item.filter, {
						attempt: item.attempt,
						previousCallId,
						callContext: item.body.context ?? '',
						placedHere: (callId) =>
							placedForAttempt(ledger, callId, { to: item.body.to, attempt: item.attempt }),
					})
				: await recentlyCalled(context, item.filter, item.windowMinutes);
		};
		// Where the list is looked at, a call placed elsewhere that rings with no number is waited for first.
		const lookUp = async () => {
			const found = await byNumber();
			if (found || (previousCallId === undefined && item.windowMinutes <= 0)) return found;
			const check = { ...item, to: item.body.to };
			return (await waitedForRinging(context, check)) ? await byNumber() : undefined;
		};
		const recheck: Recheck = async () =>
			Date.now() - lookedUpAt >= LOOK_UP_FRESH_MS ? await lookUp() : undefined;
		// The number's own earlier call is found before the hour's budget is charged.
		const recent = await lookUp();
		if (recent) {
			recordFound(record, recent);
			land();
			return recent;
		}
		if (item.hourBudget) {
			const read = await readHour(context, item.hourBudget, item.body.to);
			hourCall = takeHourCall(item.hourBudget, read, validate, item.body.to);
		}
		if (cancelSignalOf(context)?.aborted) throw cancelledError(context);
		const call = await place(record, recheck, () => pass.placing());
		land();
		return call;
	} catch (error) {
		if (record.state === 'claimed') advance(record, 'notSent');
		land();
		throw asNodeError(context.getNode(), error);
	}
}
