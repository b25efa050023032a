import type { IExecuteFunctions, INode } from 'n8n-workflow';

import type { CreatedCall } from '../../../../../shared/decode/createdCall';
import { createCall, getCall, listCalls, type CallFilter } from '../../../../../shared/api/calls';
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
import type { CallRecord, SkippedCall } from '../model';
import { advance } from '../records/callLedger';
import { CallDeferred, deferralOf } from '../callingHours/window';
import { CallFoundMeanwhile, recordFound } from '../guards/skipRecentlyCalled';
import type { ItemCall } from '../decide/taken';

type PlaceRequest = Pick<ItemCall, 'body' | 'filter' | 'itemIndex' | 'hours'> & {
	recheck?: () => Promise<SkippedCall | undefined>;
};

/** How many of the agent's latest calls are remembered before dialling, and read when looking for one. */
const RECENT_CALLS = 20;
const LOOKED_AT_CALLS = 100;
/** Waits before each look for a call whose creation answer was lost: the service may still be at it. */
const LOOKUP_DELAYS_MS = [0, 1_000, 3_000];

/** The calls this node run placed or found: a lookup never takes another item's call. */
function callsOfRun(context: IExecuteFunctions): Set<string> {
	return oncePerRun(context, 'callsOfRun', () => new Set<string>());
}

/** A refusal (4xx, 429) or a connection never opened; a stop, timeout, 5xx or bug may follow the service acting. */
function certainlyNotSent(error: unknown): boolean {
	const stated = statedFailure(error);
	return stated !== undefined && stated.kind !== 'cancelled' && !stated.outcomeUnknown;
}

/** The agent's calls (the account's for a phone number): the live service lists a ringing call without its number. */
const placedScope = ({ agentId }: CallFilter): CallFilter => (agentId ? { agentId } : {});

/** The agent's calls before POST /call: their IDs, and the service's time of the answer (ms, or NaN). */
type Before = Awaited<ReturnType<typeof callsBefore>>;

async function callsBefore(context: IExecuteFunctions, filter: CallFilter) {
	let serviceDate: string | undefined;
	const observer = { onAttempt: (attempt: AttemptReport) => (serviceDate = attempt.serviceDate) };
	const calls = await listCalls(context, placedScope(filter), RECENT_CALLS, { observer });
	return {
		knownIds: new Set(calls.map((call) => call.id)),
		serviceMs: Date.parse(serviceDate ?? ''),
	};
}

/**
 * The call an attempt created: new (not listed before, not older than that read, not another item's), with the
 * item's Context, to its number. One ringing without a number is taken only when it is the only one and the
 * Context says whose it is, or the answer hinted at its ID: never another's call.
 */
async function findPlacedCall(
	context: IExecuteFunctions,
	{ filter, body }: PlaceRequest,
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

/**
 * The record goes to `sent` the moment POST /call goes out, after any wait for the pace, unless the number
 * was called meanwhile or Calling Hours closed during the wait. `refused`: the last request was answered 429.
 */
function sendingObserver(
	record: CallRecord,
	pace: RequestObserver | undefined,
	{ hours, body, recheck }: PlaceRequest,
	node: INode,
): RequestObserver & { readonly refused: boolean } {
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
 * Sends POST /call once, never again after an answer that may mean the service acted (any 2xx: placed; a
 * failure after it may have acted: unknown). An answer that names no call: the new one in the list is it.
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
		if (
			error instanceof CallDeferred ||
			record.state === 'claimed' ||
			sending.refused ||
			certainlyNotSent(error)
		) {
			advance(record, 'notSent');
			throw asNodeError(context.getNode(), error);
		}
		advance(record, 'unknown');
		return await lookUp(context, record, request, before, {
			message: `The call to ${body.to} may not have been placed: check the call list before retrying (${(error as Error).message})`,
			why: 'The service did not confirm the call',
		});
	}
	const { call } = created;
	if (call) {
		advance(record, 'placed', call.id);
		callsOfRun(context).add(call.id);
		// The live service fills in a ringing call's number once connected.
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
	request: PlaceRequest,
	before: Before,
	failure: { message: string; why: string; hint?: string },
): Promise<Call> {
	const { body, itemIndex } = request;
	let placed: Call | undefined;
	let lookupFailure = '';
	try {
		placed = await findPlacedCall(context, request, before, failure.hint);
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
