import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall } from '../../../../../shared/api/calls';
import { LONGEST_CALL_MS } from '../../../../../shared/callStatus';
import { configurationError, noAnswerError } from '../../../../../shared/errors';
import { MAX_ENTRIES } from '../gate/numberGate';
import type { Call } from '../../../../../shared/types';
import { runsAsTool } from '../../allowedDestinations';
import type { CallRecord } from '../records/callLedger';
import type { ItemCall } from './placeOnce';
import type { SkippedCall } from '../guards/skipRecentlyCalled';

/*
 * What an item outputs when an earlier run of the node (a re-run: Retry On Fail, Retry execution, a
 * tool asked again) placed its call, as the execution's ledger says. Another holder of the number
 * (an earlier item of the run, another execution) is met in the gate (gate/meetNumber.ts).
 */

/**
 * An earlier attempt's call to the number may have been placed: this item does not dial it again. With
 * `heldUntil`, the process's gate holds the number until then (n8n's clock, ms) unless the call is found.
 */
export function mayHaveBeenPlacedError(
	context: IExecuteFunctions,
	{ body, itemIndex }: ItemCall,
	record: CallRecord,
	placedBy: string,
	heldUntil?: number,
) {
	const unnamed = record.state === 'unnamed';
	const held =
		heldUntil === undefined
			? ''
			: ` This n8n process does not dial ${body.to} from this agent again until that call is found in the call list, or until ${new Date(heldUntil).toISOString()} (the longest a call may last).`;
	const text = {
		message: unnamed
			? `The call to ${body.to} was placed by ${placedBy}, but the service's answer did not name it: not placed again, check the call list [item ${itemIndex}]`
			: `The call to ${body.to} may have been placed by ${placedBy}: not placed again, check the call list [item ${itemIndex}]`,
		description: `${unnamed ? 'The call could not be found in the call list afterwards.' : 'That attempt got no answer from the service, so the node cannot tell whether the call was placed.'} It does not dial again, so that nobody is phoned twice.${held}`,
		itemIndex,
	};
	return noAnswerError(context.getNode(), text, { outcomeUnknown: true });
}

/**
 * The process's gate keeps MAX_ENTRIES numbers whose calls may be in progress: a new number is refused
 * rather than one of them forgotten.
 */
export function gateFullError(context: IExecuteFunctions, { body, itemIndex }: ItemCall) {
	return configurationError(context.getNode(), {
		message: `The call to ${body.to} was not placed: this n8n process already holds ${MAX_ENTRIES.toLocaleString('en-US')} numbers whose calls may be in progress, the most it keeps [item ${itemIndex}]`,
		description: `The node never forgets a number whose call may still be in progress, so it dials no new number until one of those calls is seen to end or is ${LONGEST_CALL_MS / 3_600_000} hours old. Turn on Wait for the Call to End (the node then sees calls end), or spread the list over more time or more n8n processes.`,
		itemIndex,
	});
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
