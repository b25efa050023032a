/** Every request about calls. Operations and triggers call these, never the transport. */
import type { IDataObject } from 'n8n-workflow';

import type { BodyRequestOptions, RequestOptions, VoiceAgentContext } from '../transport/types';
import {
	cursorPage,
	cursorPages,
	MAX_PAGE_SIZE,
	paginateCursor,
	type CursorList,
	type ListPage,
	type PagePosition,
} from '../transport/pagination';
import { voiceAgentApiRequest } from '../transport/request';
import { withServiceClock } from '../transport/serviceClock';
import { isLive } from '../callStatus';
import { decodeCall, describeNotCall } from '../decode/call';
import { decodeCreatedCall, type CreatedCall } from '../decode/createdCall';
import { wireIdOf } from '../decode/ids';
import { dataProblemError } from '../errors';
import type { Call, CallSummary } from '../types';

const callNotFound = (id: string) => `Call "${id}"`;

/** Filters of GET /calls. */
export interface CallFilter {
	agentId?: string;
	clientNumber?: string;
}

function callsList(filter: CallFilter): CursorList<CallSummary> {
	const qs: IDataObject = {};
	if (filter.agentId) qs.agent_id = filter.agentId;
	if (filter.clientNumber) qs.client_number = filter.clientNumber;
	return { path: '/calls', itemsKey: 'calls', qs, decode: decodeCall, itemName: 'call' };
}

/**
 * A call in full: transcript, duration and end time once it has ended. A 200 whose body is not that call
 * (`null`, an array, a page of HTML, JSON cut short, no `id` or another one, a status that is not text) is
 * an error: nothing downstream can mistake it for a call, drop it, or wait on it forever.
 */
export async function getCall(
	context: VoiceAgentContext,
	id: string,
	options?: RequestOptions,
): Promise<Call> {
	const request = { method: 'GET', path: '/call', qs: { id }, notFound: callNotFound(id) } as const;
	const clock = withServiceClock(options);
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ ...request, idempotent: true },
		clock.options,
	);
	const call = decodeCall(answer, { serviceNowMs: clock.serviceNowMs() });
	if (call?.id === id) return call;
	throw dataProblemError(
		context.getNode(),
		{
			message: `GET /call answered 200 without the call "${id}" (${describeNotCall(answer, id)})`,
			description:
				"The service answered, but not with the call: the answer is not used. Reading the call again later may succeed; if it keeps happening, check that the credential's Base URL is the Voice Agent API.",
		},
		200,
	);
}

export interface NewCall extends IDataObject {
	from: string;
	to: string;
	context?: string;
	user_speaks_first?: boolean;
}

/**
 * Places a call. Never repeated after a failure whose outcome is unknown: the error then carries
 * that mark (`isOutcomeUnknown`), and the caller looks for the call before reporting it. Any 2xx means
 * the service acted: the answer says which call, when it can be read (`createdCall.ts`).
 */
export async function createCall(
	context: VoiceAgentContext,
	body: NewCall,
	{ fields, ...options }: BodyRequestOptions = {},
): Promise<CreatedCall> {
	const request = { method: 'POST', path: '/call', body, idempotent: false, fields } as const;
	const clock = withServiceClock(options);
	const answer = await voiceAgentApiRequest<unknown>(context, request, clock.options);
	return decodeCreatedCall(answer, { serviceNowMs: clock.serviceNowMs() });
}

/**
 * Replaces the context of a call in progress. Replacing it with the same text twice leaves the call
 * as once, so it is repeated after a failure like a read. The call's id goes back in the JSON type the
 * service gave it (the live service wants a number). A 2xx means the context was set, whatever its body:
 * when the body is not the call (another shape, empty), the call is read, so the output is the call.
 */
export async function setCallContext(
	context: VoiceAgentContext,
	call: { id: string },
	callContext: string,
	{ fields, ...options }: BodyRequestOptions = {},
): Promise<Call> {
	const body = { id: wireIdOf(call), context: callContext };
	const request = {
		method: 'POST',
		path: '/call/context',
		body,
		notFound: callNotFound(call.id),
		fields,
	} as const;
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ ...request, idempotent: true },
		options,
	);
	const updated = decodeCall(answer);
	return updated?.id === call.id ? updated : await getCall(context, call.id, options);
}

/** Calls newest first, in list shape: all of them, or at most `max`. */
export async function listCalls(
	context: VoiceAgentContext,
	filter: CallFilter,
	max?: number,
	options?: RequestOptions,
): Promise<CallSummary[]> {
	return await paginateCursor(context, callsList(filter), max, options);
}

/** The pages of the call list, newest first, for readers that stop at a call they have seen. */
export function callPages(
	context: VoiceAgentContext,
	filter: CallFilter,
	options?: RequestOptions,
): AsyncGenerator<CallSummary[]> {
	return cursorPages(context, callsList(filter), () => MAX_PAGE_SIZE, options);
}

/**
 * One page of the call list, newest first: the first page (no position), or the page at a position an
 * earlier page gave (a backfill resumes there, in a later poll). `want`: the calls to ask for besides
 * those the position says are served again.
 */
export async function callPage(
	context: VoiceAgentContext,
	filter: CallFilter,
	at: PagePosition | undefined,
	want: number,
	options?: RequestOptions,
): Promise<ListPage<CallSummary>> {
	return await cursorPage(context, callsList(filter), at, want, options);
}

interface LiveCalls {
	/** The calls in progress, newest first. */
	live: CallSummary[];
	/** The newest call of the filter, live or not. */
	latest?: CallSummary;
}

/**
 * The calls in progress among the filter's calls. The whole filtered list is read: the list is in order
 * of creation, so a call that is still going on may sit behind shorter calls that came after it.
 */
export async function findLiveCalls(
	context: VoiceAgentContext,
	filter: CallFilter,
	options?: RequestOptions,
): Promise<LiveCalls> {
	const found: LiveCalls = { live: [] };
	for await (const calls of callPages(context, filter, options)) {
		found.latest ??= calls[0];
		for (const call of calls) if (isLive(call)) found.live.push(call);
	}
	return found;
}

interface NewestCall {
	/** The newest call of the filter, if there is one. */
	call?: CallSummary;
	/** The service's own time of its answer (the Date header), to date the call without n8n's clock. */
	serviceDate?: string;
}

/** The newest call of the filter, with the time the service answered (one request). */
export async function newestCall(
	context: VoiceAgentContext,
	filter: CallFilter,
): Promise<NewestCall> {
	let serviceDate: string | undefined;
	const observer = {
		onAttempt: (attempt: { serviceDate?: string }) => (serviceDate = attempt.serviceDate),
	};
	const [call] = await paginateCursor(context, callsList(filter), 1, { observer });
	return { call, serviceDate };
}
