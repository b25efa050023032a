import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getCall, newestCall } from '../../../../../shared/api/calls';
import { asNodeError } from '../../../../../shared/errors';
import type { FieldLabels } from '../../../../../shared/fields';
import {
	cancelledError,
	cancelSignalOf,
	throwIfCancelled,
} from '../../../../../shared/transport/cancel';
import type { RequestObserver } from '../../../../../shared/transport/types';
import type { Call } from '../../../../../shared/types';
import { InputValidator } from '../../../../../shared/validation';
import { waitForEnd, type WaitSettings } from '../../waitForEnd';
import type { WaitSchedule } from '../../waitSchedule';
import { OUTCOMES_VERSION, type CallLedger, type SkippedCall } from '../model';
import { ledgerOf, markEnded } from '../records/callLedger';
import { callEnded, waitForHolder } from '../gate/numberGate';
import { CallDeferred } from '../callingHours/window';
import { readHour } from '../guards/callsPerHour';
import { recentLookUp, recentlyCalled } from '../guards/skipRecentlyCalled';
import { decide, settle } from '../decide/decide';
import { factsOf, type Facts, type Found, type ItemCall, type LookUp } from '../decide/taken';
import { placeCall } from '../placing/placeCall';
import { endedOutcome, outcomeFields, type ItemAttempt } from './callAgain';

/** What a batch's calls share; from 1.4 an item's node slot, taken once its number is held. */
export interface BatchSeams {
	pace?: RequestObserver;
	schedule?: WaitSchedule;
	takeSlot?: () => Promise<void>;
}

/** A call seen to end: the records say so, and the gate (only a call that surely ended). */
export function callSeenEnded(ledger: CallLedger, account: string, call: Call): void {
	markEnded(ledger, call.id);
	callEnded(account, call);
}

export interface PreparedCall extends ItemCall {
	wait: WaitSettings | undefined;
	attemptSettings: ItemAttempt;
}

/** Outside Calling Hours: the lead as it came in; `call_id` stays the previous attempt's, so nothing is lost. */
function deferredOutput(context: IExecuteFunctions, item: PreparedCall, deferred: CallDeferred) {
	return {
		...context.getInputData()[item.itemIndex].json,
		...outcomeFields('deferred', item.attempt, {
			deferred: true,
			call_id: item.previousCallId ?? '',
			next_call_at: deferred.nextCallAt,
			reason: deferred.reason,
		}),
	};
}

async function runLookUp(
	context: IExecuteFunctions,
	facts: Facts,
	what: LookUp,
	recent: () => Promise<SkippedCall | undefined>,
): Promise<void> {
	const { item } = facts;
	if (what === 'recent') facts.recent = (await recent()) ?? null;
	else if (what === 'hour' && item.hourBudget)
		facts.hour = await readHour(context, item.hourBudget, item.body.to);
	else if (what === 'newest') facts.newest = await newestCall(context, item.filter);
	else if (what === 'listed')
		facts.listed = (await recentlyCalled(context, item.filter, item.windowMinutes)) ?? null;
	else {
		// An answer that cannot be read (5xx, a proxy's page, a 404 of a call the service named) keeps the
		// call in progress. A call under that ID is this call, however the service spells its number.
		const callId = facts.met?.callId as string;
		try {
			facts.heldCall = await getCall(context, callId);
		} catch {
			throwIfCancelled(context);
			facts.heldCall = { id: callId, to: item.body.to } as Call;
		}
	}
}

async function output(context: IExecuteFunctions, found: Found): Promise<Call | SkippedCall> {
	const call = found.call ?? (await getCall(context, found.callId));
	if (found.skipReason === undefined) return call;
	const own = found.own === true ? { ownAttempt: true as const } : {};
	return { ...call, skipped: true, skipReason: found.skipReason, ...own };
}

/** Asks the decision, runs the look-ups and waits it asks for; on place, takes the slot and sends once. */
async function placeOnce(
	context: IExecuteFunctions,
	item: PreparedCall,
	seams: BatchSeams,
	fields: FieldLabels,
): Promise<Call | SkippedCall> {
	const facts = factsOf(context, new InputValidator(context.getNode(), item.itemIndex), item);
	const { lookUp, recheck } = recentLookUp(context, facts.ledger, item);
	try {
		for (;;) {
			const next = decide(facts, Date.now());
			if (next.kind === 'found') return await output(context, next);
			if (next.kind === 'refuse') throw next.error;
			if (next.kind === 'defer') throw next.deferred;
			if (next.kind === 'lookUp') await runLookUp(context, facts, next.what, lookUp);
			if (next.kind === 'wait') {
				await waitForHolder(next.entry, cancelSignalOf(context));
				throwIfCancelled(context);
				facts.waited = true;
			}
			if (next.kind !== 'place') continue;
			if (cancelSignalOf(context)?.aborted) throw cancelledError(context);
			const { pass, record } = facts as Required<Facts>;
			await seams.takeSlot?.();
			pass.placing();
			const request = { ...item, recheck };
			const call = await placeCall(context, record, request, { observer: seams.pace, fields });
			settle(facts);
			return call;
		}
	} catch (error) {
		settle(facts);
		throw asNodeError(context.getNode(), error);
	}
}

/** Place once, then wait; from version 1.3 every item carries its outcome, its attempt and `call_id`. */
export async function placeAndWait(
	context: IExecuteFunctions,
	item: PreparedCall,
	seams: BatchSeams,
	fields: FieldLabels,
): Promise<IDataObject> {
	const byOutcome = context.getNode().typeVersion >= OUTCOMES_VERSION;
	const { attempt } = item;
	let placed: Call | SkippedCall;
	try {
		placed = await placeOnce(context, item, seams, fields);
	} catch (error) {
		if (error instanceof CallDeferred) return deferredOutput(context, item, error);
		throw asNodeError(context.getNode(), error);
	}
	const { ownAttempt, ...call } = placed as SkippedCall;
	const outcome = (name: 'placed' | 'skipped', more: IDataObject = {}) =>
		byOutcome ? outcomeFields(name, attempt, { call_id: call.id, ...more }) : {};
	// A call skipped is not waited for, unless it is this very attempt's: its end is the attempt's outcome.
	const waitsForOwn = ownAttempt === true && byOutcome && item.wait !== undefined;
	if (call.skipped === true && !waitsForOwn) return { ...call, ...outcome('skipped') };
	if (!item.wait) return { ...call, ...outcome('placed') };
	const found = call.skipped === true ? { skipped: true, skipReason: call.skipReason } : {};
	const placedAt = new Date().toISOString();
	const ended = await waitForEnd(context, call, item.wait, item.itemIndex, seams.schedule);
	// A call that never connected within the wait is over for Call Again (its person was not reached),
	// though the service may still ring it: only an end frees its number (the gate) and its slot.
	const failedToConnect = ended.never_connected === true && item.attemptSettings.attempts > 1;
	if (!ended.ended && !failedToConnect)
		return { ...ended, ...found, placed_at: placedAt, ...outcome('placed') };
	if (ended.ended) callSeenEnded(ledgerOf(context), item.account, ended);
	const endSeenMs = Date.now();
	const result = byOutcome
		? {
				...endedOutcome(ended, item.attemptSettings, item.hours, endSeenMs, context.getTimezone()),
				call_id: call.id,
			}
		: {};
	return {
		...ended,
		...found,
		placed_at: placedAt,
		...(ended.ended ? { end_seen_at: new Date(endSeenMs).toISOString() } : {}),
		...result,
	};
}
