import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall, type CallFilter, type NewCall } from '../../../shared/api/calls';
import { asNodeError, isOutcomeUnknown } from '../../../shared/errors';
import { readOncePerRun } from '../../../shared/runCache';
import { cancelSignalOf } from '../../../shared/transport/cancel';
import type { Call } from '../../../shared/types';
import type { InputValidator } from '../../../shared/validation';
import { runsAsTool } from './allowedDestinations';
import {
	mayHaveBeenPlacedError,
	rememberAttempt,
	rememberedCall,
	rememberOutcome,
} from './callMemory';
import { reserveCallSlot } from './maxCallsPerRun';
import { recentlyCalled, type SkippedCall } from './skipRecentlyCalled';

interface PlaceOnceSettings {
	body: NewCall;
	/** The agent's calls to the number. */
	filter: CallFilter;
	itemIndex: number;
	/** Max Calls per Run; 0: no limit. */
	maxCalls: number;
	/** Skip Numbers Called in the Last (Minutes); 0: off. */
	windowMinutes: number;
}

/**
 * Places the item's call unless it was placed already, whatever runs the node again: an earlier run of
 * the node in this execution (Retry On Fail) gives back its call, an earlier execution's call to the
 * number within the window is output marked as skipped, and the execution's call limit is checked
 * before sending. `place` sends POST /call once.
 */
export async function placeOnce(
	context: IExecuteFunctions,
	validate: InputValidator,
	settings: PlaceOnceSettings,
	place: () => Promise<Call>,
): Promise<Call | SkippedCall> {
	const { body, filter, itemIndex } = settings;
	const remembered = rememberedCall(context, itemIndex, body);
	if (remembered?.callId !== undefined) {
		const call = await getCall(context, remembered.callId);
		if (remembered.executionId !== context.getExecutionId()) {
			const skipReason = `Execution ${remembered.executionId}, which this execution retries, placed this call already, so it was not placed again`;
			return { ...call, skipped: true, skipReason };
		}
		// An AI model that asks again learns that the number was called; a workflow's retry gets its call.
		if (!runsAsTool(context)) return call;
		const skipReason = `This tool already called ${body.to} in this execution (call ${call.id}), so it was not called again`;
		return { ...call, skipped: true, skipReason };
	}
	if (settings.windowMinutes > 0) {
		return await oncePerRunAndNumber(context, settings, async () => {
			const recent = await recentlyCalled(context, filter, settings.windowMinutes);
			return recent ?? (await placeNow(context, validate, settings, place));
		});
	}
	return await placeNow(context, validate, settings, place);
}

/**
 * With the window on, two items of one run to the same number are one call, also when Calls at Once
 * runs them together: the later item waits for the earlier one's call and outputs it as skipped (and
 * remembers it as its own, so a later *Retry execution* never dials it). An earlier item that certainly
 * placed nothing leaves the number to the next; one whose outcome is unknown leaves it to nobody.
 */
async function oncePerRunAndNumber(
	context: IExecuteFunctions,
	{ body, itemIndex }: PlaceOnceSettings,
	placeFirst: () => Promise<Call | SkippedCall>,
): Promise<Call | SkippedCall> {
	const key = `callOfRun:${body.from}>${body.to}`;
	for (;;) {
		let own = false;
		let first: { itemIndex: number; call: Call | SkippedCall };
		try {
			first = await readOncePerRun(context, key, async () => {
				own = true;
				return { itemIndex, call: await placeFirst() };
			});
		} catch (error) {
			if (own) throw asNodeError(context.getNode(), error);
			if (!isOutcomeUnknown(error)) continue;
			rememberAttempt(context, itemIndex, body);
			throw mayHaveBeenPlacedError(
				context,
				body,
				itemIndex,
				'an earlier item of this run',
				"The service did not confirm the earlier item's call to the same number, so the node cannot tell whether it was placed.",
			);
		}
		if (own || first.call.skipped === true) return first.call;
		rememberAttempt(context, itemIndex, body);
		rememberOutcome(context, itemIndex, body, first.call.id);
		const skipReason = `Item ${first.itemIndex} of this run called ${body.to} already (call ${first.call.id}), so it was not called again`;
		return { ...(await getCall(context, first.call.id)), skipped: true, skipReason };
	}
}

async function placeNow(
	context: IExecuteFunctions,
	validate: InputValidator,
	settings: PlaceOnceSettings,
	place: () => Promise<Call>,
): Promise<Call> {
	const { body, itemIndex } = settings;
	const release = reserveCallSlot(context, validate, settings.maxCalls, body.to);
	rememberAttempt(context, itemIndex, body);
	try {
		const call = await place();
		rememberOutcome(context, itemIndex, body, call.id);
		return call;
	} catch (error) {
		// Only a failure that certainly placed nothing frees the slot and the item for another try; a
		// stop may have cut POST /call off after the service acted.
		if (!isOutcomeUnknown(error) && !cancelSignalOf(context)?.aborted) {
			release();
			rememberOutcome(context, itemIndex, body, undefined);
		}
		throw asNodeError(context.getNode(), error);
	}
}
