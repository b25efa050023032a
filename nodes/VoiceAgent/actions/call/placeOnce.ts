import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall, type CallFilter, type NewCall } from '../../../shared/api';
import { asNodeError, isOutcomeUnknown } from '../../../shared/transport';
import type { Call } from '../../../shared/types';
import type { InputValidator } from '../../../shared/validation';
import { runsAsTool } from './allowedDestinations';
import { rememberAttempt, rememberedCall, rememberOutcome } from './callMemory';
import { reserveCallSlot } from './maxCallsPerRun';
import { recentlyCalled, type SkippedCall } from './skipRecentlyCalled';

export interface PlaceOnceSettings {
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
	const recent = await recentlyCalled(context, filter, settings.windowMinutes);
	if (recent) return recent;

	const release = reserveCallSlot(context, validate, settings.maxCalls, body.to);
	rememberAttempt(context, itemIndex, body);
	try {
		const call = await place();
		rememberOutcome(context, itemIndex, body, call.id);
		return call;
	} catch (error) {
		// Only a failure that certainly placed nothing frees the slot and the item for another try.
		if (!isOutcomeUnknown(error)) {
			release();
			rememberOutcome(context, itemIndex, body, undefined);
		}
		throw asNodeError(context, error);
	}
}
