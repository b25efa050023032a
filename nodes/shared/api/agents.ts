/**
 * Every request about agents. Operations, triggers and list search call these, never the transport.
 * Agents come back with their webhook's token redacted, except from the `...WithToken` readers that
 * the Voice Agent Trigger's registration needs.
 */
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import type { BodyRequestOptions, RequestOptions, VoiceAgentContext } from '../transport/types';
import { asNodeError, isNotFound } from '../errors';
import { cursorPages, MAX_PAGE_SIZE, paginateCursor } from '../transport/pagination';
import { voiceAgentApiRequest } from '../transport/request';
import type { Agent } from '../types';
import { redactAgent } from './redaction';

const AGENTS_LIST = { path: '/agents', itemsKey: 'agents' };

const agentNotFound = (id: string) => `Agent "${id}"`;

/** GET and DELETE /agent take the agent's ID as the query parameter `id`. */
async function requestAgentById<T>(
	context: VoiceAgentContext,
	method: IHttpRequestMethods,
	id: string,
	options?: RequestOptions,
): Promise<T> {
	const request = { method, path: '/agent', qs: { id }, notFound: agentNotFound(id) };
	return await voiceAgentApiRequest<T>(context, { ...request, idempotent: true }, options);
}

/** The agent as the service holds it, its webhook's token included: for the trigger's registration only. */
export async function getAgentWithToken(
	context: VoiceAgentContext,
	id: string,
	options?: RequestOptions,
) {
	return await requestAgentById<Agent>(context, 'GET', id, options);
}

export async function getAgent(context: VoiceAgentContext, id: string, options?: RequestOptions) {
	return redactAgent(await getAgentWithToken(context, id, options));
}

/**
 * Idempotent in effect; a repeat after a lost answer meets a 404, which is reported, since it cannot
 * be told apart from an ID that never existed.
 */
export async function deleteAgent(
	context: VoiceAgentContext,
	id: string,
	options?: RequestOptions,
) {
	await requestAgentById(context, 'DELETE', id, options);
}

/**
 * The agent, its webhook's token included, or undefined when it does not exist (any more): for the
 * trigger's registration only.
 */
export async function findAgentWithToken(
	context: VoiceAgentContext,
	id: string,
	options?: RequestOptions,
): Promise<Agent | undefined> {
	try {
		return await getAgentWithToken(context, id, options);
	} catch (error) {
		if (isNotFound(error)) return undefined;
		throw asNodeError(context.getNode(), error);
	}
}

/**
 * Creates the agent of that name, or updates it: only the fields in `body` change. Sending it twice
 * leaves the same agent as sending it once, so it is repeated after a failure like a read.
 */
export async function upsertAgent(
	context: VoiceAgentContext,
	body: IDataObject & { name: string },
	{ fields, ...options }: BodyRequestOptions = {},
) {
	const request = { method: 'POST', path: '/agent', body, idempotent: true, fields } as const;
	return redactAgent(await voiceAgentApiRequest<Agent>(context, request, options));
}

/** Agents newest first: all of them, or at most `max`. */
export async function listAgents(
	context: VoiceAgentContext,
	max?: number,
	options?: RequestOptions,
) {
	return (await paginateCursor<Agent>(context, AGENTS_LIST, max, options)).map(redactAgent);
}

/** The agents' pages, for readers that stop early. */
export async function* agentPages(context: VoiceAgentContext, options?: RequestOptions) {
	for await (const agents of cursorPages<Agent>(
		context,
		AGENTS_LIST,
		() => MAX_PAGE_SIZE,
		options,
	)) {
		yield agents.map(redactAgent);
	}
}

interface AgentsPage {
	agents: Agent[];
	/** The cursor of the next page; undefined on the last. */
	cursor?: string;
}

/** One page of the agent list, from `cursor` on (the editor's list search pages this way). */
export async function getAgentsPage(
	context: VoiceAgentContext,
	cursor: string | undefined,
	options?: RequestOptions,
): Promise<AgentsPage> {
	const qs: IDataObject = { limit: MAX_PAGE_SIZE };
	if (cursor) qs.cursor = cursor;
	const page = await voiceAgentApiRequest<{ agents?: Agent[]; cursor?: string | null }>(
		context,
		{ method: 'GET', path: '/agents', qs, idempotent: true },
		options,
	);
	return { agents: (page.agents ?? []).map(redactAgent), cursor: page.cursor || undefined };
}
