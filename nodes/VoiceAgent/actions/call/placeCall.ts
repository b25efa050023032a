import type { IExecuteFunctions } from 'n8n-workflow';

import {
	createCall,
	getCall,
	listCalls,
	type CallFilter,
	type NewCall,
} from '../../../shared/api/calls';
import { asNodeError, isOutcomeUnknown, noAnswerError } from '../../../shared/errors';
import { waitUnlessCancelled } from '../../../shared/transport/cancel';
import { type BodyRequestOptions } from '../../../shared/transport/types';
import { oncePerRun } from '../../../shared/runCache';
import type { Call } from '../../../shared/types';

/** How many of the latest calls to the number are remembered before dialling. */
const RECENT_CALLS = 20;
/** Waits before each look for a call whose creation answer was lost: the service may still be at it. */
const LOOKUP_DELAYS_MS = [0, 1_000, 3_000];

/** The calls this node run placed or found as its own: a lookup never takes another item's call. */
function callsOfRun(context: IExecuteFunctions): Set<string> {
	return oncePerRun(context, 'callsOfRun', () => new Set<string>());
}

/** After an ambiguous failure: the call the attempt created, if the call list shows one. */
async function findPlacedCall(
	context: IExecuteFunctions,
	filter: CallFilter,
	knownIds: Set<string>,
	callContext: string,
): Promise<Call | undefined> {
	const taken = callsOfRun(context);
	for (const delay of LOOKUP_DELAYS_MS) {
		if (delay > 0) await waitUnlessCancelled(context, delay);
		const placed = (await listCalls(context, filter, RECENT_CALLS)).find(
			(call) =>
				!knownIds.has(call.id) && !taken.has(call.id) && (call.context ?? '') === callContext,
		);
		if (placed) {
			taken.add(placed.id);
			return await getCall(context, placed.id);
		}
	}
	return undefined;
}

/**
 * Sends POST /call once. A call placed twice phones a person twice, so it is never repeated after an
 * ambiguous failure. Instead the calls that existed before are remembered (by ID, not by clock, since
 * the service's timestamps are opaque) and a new one in the list afterwards is the one this attempt made.
 */
export async function placeCall(
	context: IExecuteFunctions,
	body: NewCall,
	filter: CallFilter,
	itemIndex: number,
	/** The pace of the batch, and the labels of the body's fields. */
	options: BodyRequestOptions,
): Promise<Call> {
	const knownIds = new Set((await listCalls(context, filter, RECENT_CALLS)).map((call) => call.id));
	try {
		const call = await createCall(context, body, options);
		callsOfRun(context).add(call.id);
		return call;
	} catch (error) {
		if (!isOutcomeUnknown(error)) throw asNodeError(context.getNode(), error);
		let placed: Call | undefined;
		let lookupFailure = '';
		try {
			placed = await findPlacedCall(context, filter, knownIds, body.context ?? '');
		} catch (lookupError) {
			// The look itself failing says nothing about the call: the warning below must stand.
			lookupFailure = ` Looking for it failed too: ${(lookupError as Error).message}.`;
		}
		if (placed) return placed;
		const unconfirmed = {
			message: `The call to ${body.to} may not have been placed: check the call list before retrying (${(error as Error).message})`,
			description:
				`The service did not confirm the call, and no new call from ${body.from} to ${body.to} could be found in the call list afterwards.${lookupFailure} ` +
				'The node does not try again on its own, so that nobody is phoned twice.',
			itemIndex,
		};
		throw noAnswerError(context.getNode(), unconfirmed, { outcomeUnknown: true });
	}
}
