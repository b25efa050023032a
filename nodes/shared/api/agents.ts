/**
 * Every request about agents. Operations, triggers and list search call these, never the transport.
 * Agents come back with their webhook's token redacted, except from the `...WithToken` readers that
 * the Voice Agent Trigger's registration needs.
 */
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import type { BodyRequestOptions, RequestOptions, VoiceAgentContext } from '../transport/types';
import { decodeAgent } from '../decode/agent';
import { asNodeError, dataProblemError, isNotFound } from '../errors';
import {
	cursorPage,
	cursorPages,
	MAX_PAGE_SIZE,
	paginateCursor,
	type CursorList,
} from '../transport/pagination';
import { voiceAgentApiRequest } from '../transport/request';
import { positionOfToken, positionToken } from '../transport/seam';
import { readOncePerRun } from '../runCache';
import type { Agent } from '../types';
import { keptFieldsOf } from './agentFields';
import { redactAgent } from './redaction';

const AGENTS_LIST: CursorList<Agent> = {
	path: '/agents',
	itemsKey: 'agents',
	decode: decodeAgent,
	itemName: 'agent',
};

const agentNotFound = (id: string) => `Agent "${id}"`;

/** The agent an answer carries; a 2xx without one is an error (another server answers the Base URL). */
function agentOf(context: VoiceAgentContext, answer: unknown, route: string): Agent {
	const agent = decodeAgent(answer);
	if (agent) return agent;
	throw dataProblemError(
		context.getNode(),
		{ message: `${route} answered without the agent: the answer is not used` },
		200,
	);
}

/** The agent as the service holds it, its webhook's token included: for the trigger's registration only. */
export async function getAgentWithToken(
	context: VoiceAgentContext,
	id: string,
	options?: RequestOptions,
): Promise<Agent> {
	const request = {
		method: 'GET',
		path: '/agent',
		qs: { id },
		notFound: agentNotFound(id),
	} as const;
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ ...request, idempotent: true },
		options,
	);
	return agentOf(context, answer, 'GET /agent');
}

export async function getAgent(context: VoiceAgentContext, id: string, options?: RequestOptions) {
	return redactAgent(await getAgentWithToken(context, id, options));
}

/**
 * Idempotent in effect; a repeat after a lost answer meets a 404, which is reported, since it cannot
 * be told apart from an ID that never existed. Any 2xx (200 with a body, the live service's empty 204)
 * means it is gone.
 */
export async function deleteAgent(
	context: VoiceAgentContext,
	id: string,
	options?: RequestOptions,
): Promise<void> {
	const method: IHttpRequestMethods = 'DELETE';
	const request = { method, path: '/agent', qs: { id }, notFound: agentNotFound(id) };
	await voiceAgentApiRequest(context, { ...request, idempotent: true }, options);
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
 * The account's agents by name as the service lists them (tokens included), read once per node run and
 * kept up to date by the run's own upserts: an update of many agents reads the list once.
 */
function agentsByNameWithToken(
	context: VoiceAgentContext,
	options?: RequestOptions,
): Promise<Map<string, Agent>> {
	return readOncePerRun(context, 'agentsByNameWithToken', async () => {
		const byName = new Map<string, Agent>();
		for await (const agents of cursorPages(context, AGENTS_LIST, () => MAX_PAGE_SIZE, options))
			for (const agent of agents) if (!byName.has(agent.name)) byName.set(agent.name, agent);
		return byName;
	});
}

/**
 * Creates the agent of that name, or updates it: only the fields in `body` change. The documented
 * service keeps a field an update leaves out; the live service wipes it. So an update sends the agent's
 * other fields as the service holds them (`current`, when the caller has read it; otherwise found by
 * name in the list), and either service keeps them. Sending it twice leaves the same agent as sending it
 * once, so it is repeated after a failure like a read.
 */
export async function upsertAgent(
	context: VoiceAgentContext,
	body: IDataObject & { name: string },
	{ fields, current, ...options }: BodyRequestOptions & { current?: Agent } = {},
): Promise<Agent> {
	const directory = current ? undefined : await agentsByNameWithToken(context, options);
	const stored = current ?? directory?.get(body.name);
	const whole = stored ? { ...keptFieldsOf(stored), ...body } : body;
	const request = {
		method: 'POST',
		path: '/agent',
		body: whole,
		idempotent: true,
		fields,
	} as const;
	const answer = await voiceAgentApiRequest<unknown>(context, request, options);
	const agent = agentOf(context, answer, 'POST /agent');
	directory?.set(agent.name, agent);
	return redactAgent(agent);
}

/** Agents newest first: all of them, or at most `max`. */
export async function listAgents(
	context: VoiceAgentContext,
	max?: number,
	options?: RequestOptions,
): Promise<Agent[]> {
	return (await paginateCursor(context, AGENTS_LIST, max, options)).map(redactAgent);
}

/** The agents' pages, for readers that stop early. */
export async function* agentPages(context: VoiceAgentContext, options?: RequestOptions) {
	for await (const agents of cursorPages(context, AGENTS_LIST, () => MAX_PAGE_SIZE, options)) {
		yield agents.map(redactAgent);
	}
}

interface AgentsPage {
	agents: Agent[];
	/** Where the next page starts, as one text (`seam.ts`); undefined on the last. */
	token?: string;
}

/** One page of the agent list, from a token on (the editor's list search pages this way). */
export async function getAgentsPage(
	context: VoiceAgentContext,
	token: string | undefined,
	options?: RequestOptions,
): Promise<AgentsPage> {
	const at = positionOfToken(token);
	const page = await cursorPage(context, AGENTS_LIST, at, MAX_PAGE_SIZE, options);
	return { agents: page.items.map(redactAgent), token: positionToken(page.next) };
}
