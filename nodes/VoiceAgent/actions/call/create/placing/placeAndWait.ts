import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../../../../shared/errors';
import type { FieldLabels } from '../../../../../shared/fields';
import type { Call } from '../../../../../shared/types';
import { InputValidator } from '../../../../../shared/validation';
import { endedOutcome, type ItemAttempt } from '../attempts/callAgain';
import type { BatchSeams } from '../batch/callBatch';
import { CallDeferred } from '../callingHours/option';
import { ledgerOf } from '../records/callLedger';
import { callSeenEnded } from '../gate/meetNumber';
import { outcomeFields, OUTCOMES_VERSION } from '../attempts/outcomes';
import { placeCall } from './placeCall';
import { placeOnce, type ItemCall } from './placeOnce';
import type { SkippedCall } from '../guards/skipRecentlyCalled';
import { waitForEnd, type WaitSettings } from '../../waitForEnd';

/** The item's call with its agent looked up: done for every item before the first call is placed. */
export interface PreparedCall extends ItemCall {
	wait: WaitSettings | undefined;
	attemptSettings: ItemAttempt;
}

/**
 * An item outside its Calling Hours: the lead as it came in, with why and when to call it. Its
 * `call_id` stays the previous attempt's, so a lead store that writes it back loses nothing.
 */
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

/**
 * Place once (placeOnce.ts: re-runs, the gate, the skip window, the budgets, Calling Hours), then wait. The items of a call that ended carry when n8n placed it and saw it end; from node
 * version 1.3 every item carries its outcome, its attempt and `call_id`.
 */
export async function placeAndWait(
	context: IExecuteFunctions,
	item: PreparedCall,
	seams: BatchSeams,
	fields: FieldLabels,
): Promise<IDataObject> {
	const validate = new InputValidator(context.getNode(), item.itemIndex);
	const byOutcome = context.getNode().typeVersion >= OUTCOMES_VERSION;
	const { attempt } = item;
	let placed: Call | SkippedCall;
	try {
		placed = await placeOnce(context, validate, item, async (record, recheck, placing) => {
			// The number is held in the gate while the item waits for its slot (version 1.4).
			await seams.takeSlot?.();
			placing();
			return await placeCall(
				context,
				record,
				{ ...item, recheck },
				{ observer: seams.pace, fields },
			);
		});
	} catch (error) {
		if (error instanceof CallDeferred) return deferredOutput(context, item, error);
		throw asNodeError(context.getNode(), error);
	}
	const { ownAttempt, ...call } = placed as SkippedCall;
	const outcome = (name: 'placed' | 'skipped', more: IDataObject = {}) =>
		byOutcome ? outcomeFields(name, attempt, { call_id: call.id, ...more }) : {};
	// A call skipped as placed before is output as found: this run did not place it, so it does not wait,
	// unless it is this very attempt's call (Call Again): then its end is this attempt's outcome.
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
