import type { ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

import { agentPages, getAgentsPage } from '../api/agents';
import { configurationError } from '../errors';
import { readOncePerRun } from '../runCache';
import type { RequestOptions, VoiceAgentContext } from '../transport/types';
import type { Agent } from '../types';
import { INPUT_LIMITS, InputValidator } from '../validation';
import { nodeParameter, type ParameterContext } from './nodeParameter';

const LABEL = 'Agent';

/**
 * The agent picker, wherever an agent is chosen: from a searchable list, by its ID, or by its exact
 * name (what a CRM row or an AI model knows), with its list search, its readers and name resolution.
 */
export function agentLocator(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: LABEL,
		name: 'agent',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The voice agent',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select an agent...',
				typeOptions: { searchListMethod: 'searchAgents', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. agt_3f9a2c7d1b8e4f60',
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. Renewal Reminder',
				hint: 'The exact name of one agent',
			},
		],
		...overrides,
	};
}

/**
 * "From List": one page of the service's list at a time. The service cannot filter by name, so the
 * filter applies to each page and n8n asks for the next page as needed.
 */
export async function searchAgents(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = await getAgentsPage(this, paginationToken, { purpose: 'editor' });
	const needle = filter?.trim().toLowerCase() ?? '';
	const results = page.agents
		.filter(
			(agent) =>
				needle === '' ||
				agent.name.toLowerCase().includes(needle) ||
				(agent.phone_number ?? '').includes(needle) ||
				agent.id.toLowerCase() === needle,
		)
		.map((agent) => ({
			name: agent.phone_number ? `${agent.name} (${agent.phone_number})` : agent.name,
			value: agent.id,
		}));
	return { results, paginationToken: page.token };
}

/** What an agent picker holds: n8n's resource locator value `{ __rl, mode, value }`. */
export interface AgentLocatorValue {
	mode?: string;
	value?: unknown;
}

interface ReadAgentOptions {
	/** The picker's label, for errors (default "Agent"). */
	field?: string;
	/** The input item; none in trigger hooks and polls. */
	itemIndex?: number;
	request?: RequestOptions;
}

export interface ResolvedAgent {
	id: string;
	/** The agent as the list shows it, when it was found by name. */
	agent?: Agent;
}

type AgentsByName = Map<string, Agent[]>;

/** The account's agents by name, read once per node run: every name of the run is looked up in it. */
function agentsByName(context: VoiceAgentContext, request?: RequestOptions): Promise<AgentsByName> {
	return readOncePerRun(context, 'agentsByName', async () => {
		const byName: AgentsByName = new Map();
		for await (const agents of agentPages(context, request)) {
			for (const agent of agents) {
				const same = byName.get(agent.name);
				if (same) same.push(agent);
				else byName.set(agent.name, [agent]);
			}
		}
		return byName;
	});
}

async function agentNamed(
	context: VoiceAgentContext,
	name: string,
	{ field = LABEL, itemIndex, request }: ReadAgentOptions,
): Promise<Agent> {
	const directory = await agentsByName(context, request);
	const matches = directory.get(name) ?? [];
	if (matches.length === 1) return matches[0];
	const at = itemIndex === undefined ? '' : ` [item ${itemIndex}]`;
	// What to do is in the message: n8n's toasts show no description.
	if (matches.length === 0) {
		const wanted = name.trim().toLowerCase();
		const similar = [...directory.keys()]
			.filter((known) => known.trim().toLowerCase() === wanted)
			.map((known) => `"${known}"`);
		const remedy =
			similar.length > 0
				? `did you mean ${similar.join(' or ')}?`
				: 'pick the agent from the list or give its ID';
		throw configurationError(context.getNode(), {
			message: `No agent is named "${name}": ${remedy}${at}`,
			description: `${field} (By Name) is matched exactly, case and spaces included.`,
			itemIndex,
		});
	}
	const ids = matches.map((agent) => agent.id).join(', ');
	throw configurationError(context.getNode(), {
		message: `${matches.length} agents are named "${name}" (${ids}): give the ID of the one you mean, or pick it from the list${at}`,
		description: `${field} (By Name) must name one agent; giving the agents unique names also avoids this.`,
		itemIndex,
	});
}

/**
 * The agent a picker value chooses. From the list or by ID: the ID as given (checked, not fetched).
 * By name: the one agent of exactly that name; none, or several, is an error naming the name.
 */
export async function resolveAgent(
	context: VoiceAgentContext,
	locator: AgentLocatorValue | string | undefined,
	options: ReadAgentOptions = {},
): Promise<ResolvedAgent> {
	const field = options.field ?? LABEL;
	const validate = new InputValidator(context.getNode(), options.itemIndex ?? 0);
	const { mode, value } =
		typeof locator === 'object' && locator !== null ? locator : { mode: 'id', value: locator };
	if (mode === 'name') {
		const agent = await agentNamed(
			context,
			validate.nonEmptyString(value, field, INPUT_LIMITS.nameLength),
			options,
		);
		return { id: agent.id, agent };
	}
	return { id: validate.id(value, field) };
}

/** The ID of the agent the picker chooses. */
export async function readAgentId(
	context: ParameterContext,
	options: ReadAgentOptions = {},
): Promise<string> {
	const locator = nodeParameter(context, 'agent', options.itemIndex, {});
	return (await resolveAgent(context, locator as AgentLocatorValue, options)).id;
}

/** The ID of the agent an optional picker chooses, or undefined when it is left empty. */
export async function readOptionalAgentId(
	context: ParameterContext,
	options: ReadAgentOptions = {},
): Promise<string | undefined> {
	const locator = nodeParameter(context, 'agent', options.itemIndex, {});
	const { value } = (locator ?? {}) as AgentLocatorValue;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	return (await resolveAgent(context, locator as AgentLocatorValue, options)).id;
}
