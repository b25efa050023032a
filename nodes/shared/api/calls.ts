/** Every request about calls. Operations and triggers call these, never the transport. */
import type { IDataObject } from 'n8n-workflow';

import type {
	AttemptReport,
	BodyRequestOptions,
	RequestOptions,
	VoiceAgentContext,
} from '../transport/types';
import {
	cursorPage,
	cursorPages,
	MAX_PAGE_SIZE,
	paginateCursor,
	type ListPage,
} from '../transport/pagination';
import { voiceAgentApiRequest } from '../transport/request';
import { isLive } from '../callStatus';
import { dataProblemError } from '../errors';
import { isPlainObject } from '../validation';
import type { Call, CallSummary } from '../types';

const callNotFound = (id: string) => `Call "${id}"`;

/** Filters of GET /calls. */
export interface CallFilter {
	agentId?: string;
	clientNumber?: string;
}

function callsList(filter: CallFilter) {
	const qs: IDataObject = {};
	if (filter.agentId) qs.agent_id = filter.agentId;
	if (filter.clientNumber) qs.client_number = filter.clientNumber;
	return { path: '/calls', itemsKey: 'calls', qs };
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
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ ...request, idempotent: true },
		options,
	);
	if (isCallWithId(answer, id)) return answer;
	throw dataProblemError(
		context.getNode(),
		{
			message: `GET /call answered 200 without the call "${id}" (${describeAnswer(answer)})`,
			description:
				"The service answered, but not with the call: the answer is not used. Reading the call again later may succeed; if it keeps happening, check that the credential's Base URL is the Voice Agent API.",
		},
		200,
	);
}

/** The call asked for: an object with that `id`, and a `status` that is text when it has one. */
function isCallWithId(answer: unknown, id: string): answer is Call {
	return (
		isCall(answer) &&
		answer.id === id &&
		(answer.status === undefined || typeof answer.status === 'string')
	);
}

/** What came instead of the call, in a few words (never its content). */
function describeAnswer(answer: unknown): string {
	if (answer === null || answer === undefined || answer === '') return 'an empty answer';
	if (Array.isArray(answer)) return 'a list';
	if (typeof answer === 'string') return 'text that is not JSON';
	if (!isPlainObject(answer)) return `a ${typeof answer}`;
	if (typeof answer.id !== 'string' || answer.id === '') return "an object without the call's id";
	return answer.status === undefined || typeof answer.status === 'string'
		? 'another call'
		: 'a status that is not text';
}

export interface NewCall extends IDataObject {
	from: string;
	to: string;
	context?: string;
	user_speaks_first?: boolean;
}

/**
 * Places a call. Never repeated after a failure whose outcome is unknown: the error then carries
 * that mark (`isOutcomeUnknown`), and the caller looks for the call before reporting it.
 */
export async function createCall(
	context: VoiceAgentContext,
	body: NewCall,
	{ fields, ...options }: BodyRequestOptions = {},
) {
	const request = { method: 'POST', path: '/call', body, idempotent: false, fields } as const;
	return await voiceAgentApiRequest<Call>(context, request, options);
}

/**
 * Replaces the context of a call in progress. Replacing it with the same text twice leaves the call
 * as once, so it is repeated after a failure like a read. A 2xx means the context was set, whatever its
 * body: when the body is not the call (another shape, empty), the call is read, so the output is the call.
 */
export async function setCallContext(
	context: VoiceAgentContext,
	id: string,
	callContext: string,
	{ fields, ...options }: BodyRequestOptions = {},
) {
	const body = { id, context: callContext };
	const request = {
		method: 'POST',
		path: '/call/context',
		body,
		notFound: callNotFound(id),
		fields,
	} as const;
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ ...request, idempotent: true },
		options,
	);
	return isCall(answer) ? answer : await getCall(context, id, options);
}

function isCall(answer: unknown): answer is Call {
	return isPlainObject(answer) && typeof answer.id === 'string' && answer.id !== '';
}

/** Calls newest first, in list shape: all of them, or at most `max`. */
export async function listCalls(
	context: VoiceAgentContext,
	filter: CallFilter,
	max?: number,
	options?: RequestOptions,
) {
	return await paginateCursor<CallSummary>(context, callsList(filter), max, options);
}

/** The pages of the call list, newest first, for readers that stop at a call they have seen. */
export function callPages(
	context: VoiceAgentContext,
	filter: CallFilter,
	options?: RequestOptions,
) {
	return cursorPages<CallSummary>(context, callsList(filter), () => MAX_PAGE_SIZE, options);
}

/**
 * One page of the call list, newest first: the first page without a cursor, or the page at a cursor the
 * service gave (a backfill resumes there, in a later poll).
 */
export async function callPage(
	context: VoiceAgentContext,
	filter: CallFilter,
	cursor: string | undefined,
	limit: number,
	options?: RequestOptions,
): Promise<ListPage<CallSummary>> {
	return await cursorPage<CallSummary>(context, callsList(filter), cursor, limit, options);
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
	const observer = { onAttempt: (attempt: AttemptReport) => (serviceDate = attempt.serviceDate) };
	const [call] = await paginateCursor<CallSummary>(context, callsList(filter), 1, { observer });
	return { call, serviceDate };
}
