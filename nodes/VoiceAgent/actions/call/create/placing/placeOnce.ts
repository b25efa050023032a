import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall, newestCall } from '../../../../../shared/api/calls';
import { asNodeError } from '../../../../../shared/errors';
import {
	cancelledError,
	cancelSignalOf,
	throwIfCancelled,
} from '../../../../../shared/transport/cancel';
import type { Call } from '../../../../../shared/types';
import type { InputValidator } from '../../../../../shared/validation';
import type { CallRecord, SkippedCall } from '../model';
import { waitForHolder } from '../gate/numberGate';
import { readHour } from '../guards/callsPerHour';
import { waitedForRinging } from '../guards/ringingElsewhere';
import {
	attemptPlacedAlready,
	placedForAttempt,
	recentlyCalled,
} from '../guards/skipRecentlyCalled';
import { decide, factsOf, settle } from '../decide/decide';
import type { Facts, Found, ItemCall, LookUp } from '../decide/taken';

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

/**
 * The skip window's look-up, or from attempt 2 the previous attempt's call. Where the list is looked at, a
 * call placed elsewhere that rings with no number is waited for first (guards/ringingElsewhere.ts).
 */
function recentLookUp(context: IExecuteFunctions, facts: Facts) {
	const { item, ledger } = facts;
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
	const lookUp = async () => {
		const found = await byNumber();
		if (found || (previousCallId === undefined && item.windowMinutes <= 0)) return found;
		const check = { ...item, to: item.body.to };
		return (await waitedForRinging(context, check)) ? await byNumber() : undefined;
	};
	const recheck: Recheck = async () =>
		Date.now() - lookedUpAt >= LOOK_UP_FRESH_MS ? await lookUp() : undefined;
	return { lookUp, recheck };
}

/** Runs a look-up the decision asked for, and keeps its answer in the facts. */
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

/** The call to output instead of placing one: as read, or by ID; marked as skipped unless it is the item's own. */
async function output(context: IExecuteFunctions, found: Found): Promise<Call | SkippedCall> {
	const call = found.call ?? (await getCall(context, found.callId));
	if (found.skipReason === undefined) return call;
	const own = found.own === true ? { ownAttempt: true as const } : {};
	return { ...call, skipped: true, skipReason: found.skipReason, ...own };
}

/**
 * Places the item's call unless it was placed already, whatever runs the node again or at the same time
 * (decide/decide.ts says what holds it back): asks the decision, runs the look-ups and waits it asks for,
 * and when it says place, sends POST /call once (`place`). The gate is told what the record says once the
 * call is sent and answered, found instead, or refused.
 */
export async function placeOnce(
	context: IExecuteFunctions,
	validate: InputValidator,
	item: ItemCall,
	place: Place,
): Promise<Call | SkippedCall> {
	const facts = factsOf(context, validate, item);
	const { lookUp, recheck } = recentLookUp(context, facts);
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
			const call = await place(record, recheck, () => pass.placing());
			settle(facts);
			return call;
		}
	} catch (error) {
		settle(facts);
		throw asNodeError(context.getNode(), error);
	}
}
