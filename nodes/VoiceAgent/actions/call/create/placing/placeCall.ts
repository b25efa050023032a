import type { IExecuteFunctions, INode } from 'n8n-workflow';

import type { CreatedCall } from '../../../../../shared/decode/createdCall';
import {
	createCall,
	getCall,
	listCalls,
	type CallFilter,
	type NewCall,
} from '../../../../../shared/api/calls';
import { asNodeError, noAnswerError, statedFailure } from '../../../../../shared/errors';
import { waitUnlessCancelled } from '../../../../../shared/transport/cancel';
import type {
	AttemptReport,
	BodyRequestOptions,
	RequestObserver,
} from '../../../../../shared/transport/types';
import { latestInstantOf } from '../../../../../shared/serviceTime';
import { numberCalled } from '../../../../../shared/callStatus';
import { oncePerRun } from '../../../../../shared/runCache';
import type { Call } from '../../../../../shared/types';
import { advance, type CallRecord } from '../records/callLedger';
import { CallDeferred, deferralOf, type ItemHours } from '../callingHours/option';
import { CallFoundMeanwhile, recordFound, type SkippedCall } from '../guards/skipRecentlyCalled';

/** What POST /call sends for an item, and what is checked before it goes out. */
interface PlaceRequest {
	body: NewCall;
	filter: CallFilter;
	itemIndex: number;
	hours?: ItemHours;
	/** Looks again whether the number was called meanwhile, when the last look is not fresh. */
	recheck?: () => Promise<SkippedCall | undefined>;
}

/** How many of the agent's latest calls are remembered before dialling, and read when looking for one. */
const RECENT_CALLS = 20;
const LOOKED_AT_CALLS = 100;
/** Waits before each look for a call whose creation answer was lost: the service may still be at it. */
const LOOKUP_DELAYS_MS = [0, 1_000, 3_000];

/** The calls this node run placed or found as its own: a lookup never takes another item's call. */
function callsOfRun(context: IExecuteFunctions): Set<string> {
	return oncePerRun(context, 'callsOfRun', () => new Set<string>());
}

/**
 * Whether a failed POST /call certainly placed nothing: the service refused it (a 4xx, a 429) or the
 * connection never opened. A stop, a timeout, a 5xx, or anything the node did not state itself (a bug)
 * may have come after the service acted.
 */
function certainlyNotSent(error: unknown): boolean {
	const stated = statedFailure(error);
	return stated !== undefined && stated.kind !== 'cancelled' && !stated.outcomeUnknown;
}

/**
 * Where a call the item placed shows in the list: among its agent's calls (the account's when From gave a
 * phone number), since a service may list a call that rings without its number (the live one).
 */
const placedScope = ({ agentId }: CallFilter): CallFilter => (agentId ? { agentId } : {});

/** The agent's calls before POST /call: their IDs, and the service's time of the answer (ms, or NaN). */
interface Before {
	knownIds: Set<string>;
	serviceMs: number;
}

async function callsBefore(context: IExecuteFunctions, filter: CallFilter): Promise<Before> {
	let serviceDate: string | undefined;
	const observer = { onAttempt: (attempt: AttemptReport) => (serviceDate = attempt.serviceDate) };
	const calls = await listCalls(context, placedScope(filter), RECENT_CALLS, { observer });
	return {
		knownIds: new Set(calls.map((call) => call.id)),
		serviceMs: Date.parse(serviceDate ?? ''),
	};
}

/**
 * The call an attempt created: a call of its agent that is new (not listed before, not created before that
 * read by the service's clock, not taken by another item of the run), with the item's Context, to its
 * number. One that rings without a number (the live service's, until it connects) is taken only when it is
 * the only one and the Context says whose it is, or the answer hinted at its ID: never another's call.
 */
async function findPlacedCall(
	context: IExecuteFunctions,
	{ filter, body }: { filter: CallFilter; body: NewCall },
	before: Before,
	hint: string | undefined,
): Promise<Call | undefined> {
	const taken = callsOfRun(context);
	const callContext = body.context ?? '';
	// The service's clock writes created_at to the second at worst: a second of slack.
	const since = Number.isNaN(before.serviceMs) ? -Infinity : before.serviceMs - 1_000;
	for (const delay of LOOKUP_DELAYS_MS) {
		if (delay > 0) await waitUnlessCancelled(context, delay);
		const fresh = (await listCalls(context, placedScope(filter), LOOKED_AT_CALLS)).filter(
			(call) =>
				!before.knownIds.has(call.id) &&
				!taken.has(call.id) &&
				!(latestInstantOf(call.created_at) < since) &&
				(call.context ?? '') === callContext,
		);
		const ours = fresh.filter((call) => numberCalled(call) === body.to);
		const ringing = fresh.filter((call) => numberCalled(call) === '');
		const named = ours.find((call) => call.id === hint) ?? ringing.find((call) => call.id === hint);
		const alone = ringing.length === 1 && callContext !== '' ? ringing[0] : undefined;
		const placed = named ?? ours[0] ?? alone;
		if (placed) {
			taken.add(placed.id);
			const call = await getCall(context, placed.id);
			return call.to ? call : { ...call, to: body.to };
		}
	}
	return undefined;
}

/** The transport's observer of POST /call; `refused`: the last request that went out was answered 429. */
type SendingObserver = RequestObserver & { readonly refused: boolean };

/**
 * The record goes to `sent` the moment POST /call goes out, after any wait for the pace. Nothing goes out
 * when the number turns out to have been called meanwhile (looked up again unless the last look is
 * fresh), or when Calling Hours closed during the wait (a refused earlier attempt sent nothing).
 */
function sendingObserver(
	record: CallRecord,
	pace: RequestObserver | undefined,
	{ hours, body, recheck }: PlaceRequest,
	node: INode,
): SendingObserver {
	// A 429 says the service did not act; a stop during its wait, before the next request, sent nothing.
	let refused = false;
	return {
		get refused() {
			return refused;
		},
		beforeAttempt: async () => {
			await pace?.beforeAttempt?.();
			if (recheck && record.state === 'claimed') {
				const found = await recheck();
				if (found) throw new CallFoundMeanwhile(node, found);
			}
			const deferred = deferralOf(node, hours, body.to, Date.now());
			if (deferred) throw deferred;
			advance(record, 'sent');
			refused = false;
		},
		onAttempt: (attempt) => {
			refused = attempt.status === 429;
			pace?.onAttempt(attempt);
		},
	};
}

/**
 * Sends POST /call once and moves the item's record as the answer says. A call placed twice phones a
 * person twice, so it is never repeated after an answer that may mean the service acted: any 2xx is
 * "placed", and a failure that may have come after the service acted is "unknown". Either way, when the
 * answer does not name the call, the agent's calls that existed before are remembered (by ID, and the
 * service's time of that answer) and a new one in the list afterwards is the one placed.
 */
export async function placeCall(
	context: IExecuteFunctions,
	record: CallRecord,
	request: PlaceRequest,
	{ observer, ...options }: BodyRequestOptions,
): Promise<Call | SkippedCall> {
	const { body, filter, itemIndex } = request;
	const before = await callsBefore(context, filter);
	let created: CreatedCall;
	const sending = sendingObserver(record, observer, request, context.getNode());
	try {
		created = await createCall(context, body, { ...options, observer: sending });
	} catch (error) {
		if (error instanceof CallFoundMeanwhile) {
			recordFound(record, error.found);
			return error.found;
		}
		if (error instanceof CallDeferred) {
			advance(record, 'notSent');
			throw asNodeError(context.getNode(), error);
		}
		if (record.state === 'claimed' || sending.refused || certainlyNotSent(error)) {
			advance(record, 'notSent');
			throw asNodeError(context.getNode(), error);
		}
		advance(record, 'unknown');
		return await lookUp(context, record, request, before, {
			message: `The call to ${body.to} may not have been placed: check the call list before retrying (${(error as Error).message})`,
			why: 'The service did not confirm the call',
		});
	}
	// A 2xx: the service acted, whatever the body looks like.
	const { call } = created;
	if (call) {
		advance(record, 'placed', call.id);
		callsOfRun(context).add(call.id);
		// A call that rings has no number yet at a service that fills it in once connected (the live one).
		return call.to ? call : { ...call, to: body.to };
	}
	advance(record, 'unnamed');
	return await lookUp(context, record, request, before, {
		message: `The call to ${body.to} was placed, but the service's answer did not name it: check the call list [item ${itemIndex}]`,
		why: 'The service answered that it placed the call without naming it',
		hint: created.hintedId,
	});
}

/** After an answer that named no call: the call the list shows, or an error that never dials again. */
async function lookUp(
	context: IExecuteFunctions,
	record: CallRecord,
	{ body, filter, itemIndex }: { body: NewCall; filter: CallFilter; itemIndex: number },
	before: Before,
	failure: { message: string; why: string; hint?: string },
): Promise<Call> {
	let placed: Call | undefined;
	let lookupFailure = '';
	try {
		placed = await findPlacedCall(context, { filter, body }, before, failure.hint);
	} catch (lookupError) {
		// The look itself failing says nothing about the call: the error below must stand.
		lookupFailure = ` Looking for it failed too: ${(lookupError as Error).message}.`;
	}
	if (placed) {
		advance(record, 'placed', placed.id);
		return placed;
	}
	const text = {
		message: failure.message,
		description:
			`${failure.why}, and no new call from ${body.from} to ${body.to} could be found in the call list afterwards.${lookupFailure} ` +
			'The node does not dial it again, on its own or when n8n runs it again, so that nobody is phoned twice.',
		itemIndex,
	};
	throw noAnswerError(context.getNode(), text, { outcomeUnknown: true });
}
