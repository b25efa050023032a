import { NodeOperationError } from 'n8n-workflow';

import { agentPages } from './api';
import type { RequestOptions, VoiceAgentContext } from './transport';
import type { Agent } from './types';
import { INPUT_LIMITS, InputValidator } from './validation';

/** What an agent picker holds: n8n's resource locator value `{ __rl, mode, value }`. */
export interface AgentLocatorValue {
	mode?: string;
	value?: unknown;
}

/** The locator mode that names the agent (see `agentLocator`). */
export const BY_NAME = 'name';

export interface ResolveAgentOptions {
	/** The picker's label, for errors (default "Agent"). */
	field?: string;
	/** The input item, for errors; none in trigger hooks. */
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
const directories = new WeakMap<object, Promise<AgentsByName>>();

async function readDirectory(
	context: VoiceAgentContext,
	options?: RequestOptions,
): Promise<AgentsByName> {
	const byName: AgentsByName = new Map();
	for await (const agents of agentPages(context, options)) {
		for (const agent of agents) {
			const same = byName.get(agent.name);
			if (same) same.push(agent);
			else byName.set(agent.name, [agent]);
		}
	}
	return byName;
}

function directoryFor(context: VoiceAgentContext, options?: RequestOptions) {
	let directory = directories.get(context);
	if (!directory) {
		directory = readDirectory(context, options);
		directories.set(context, directory);
		directory.catch(() => directories.delete(context));
	}
	return directory;
}

function nameError(
	context: VoiceAgentContext,
	message: string,
	description: string,
	itemIndex?: number,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description, itemIndex });
}

/** Names that differ from `name` only in case or surrounding spaces: what the user probably meant. */
function similarNames(directory: AgentsByName, name: string): string[] {
	const wanted = name.trim().toLowerCase();
	return [...directory.keys()].filter((known) => known.trim().toLowerCase() === wanted);
}

async function agentNamed(
	context: VoiceAgentContext,
	name: string,
	{ field = 'Agent', itemIndex, request }: ResolveAgentOptions,
): Promise<Agent> {
	const directory = await directoryFor(context, request);
	const matches = directory.get(name) ?? [];
	if (matches.length === 1) return matches[0];
	const at = itemIndex === undefined ? '' : ` [item ${itemIndex}]`;
	// What to do is in the message: n8n's toasts show no description.
	if (matches.length === 0) {
		const similar = similarNames(directory, name).map((known) => `"${known}"`);
		const remedy =
			similar.length > 0
				? `did you mean ${similar.join(' or ')}?`
				: 'pick the agent from the list or give its ID';
		throw nameError(
			context,
			`No agent is named "${name}": ${remedy}${at}`,
			`${field} (By Name) is matched exactly, case and spaces included.`,
			itemIndex,
		);
	}
	const ids = matches.map((agent) => agent.id).join(', ');
	throw nameError(
		context,
		`${matches.length} agents are named "${name}" (${ids}): give the ID of the one you mean, or pick it from the list${at}`,
		`${field} (By Name) must name one agent; giving the agents unique names also avoids this.`,
		itemIndex,
	);
}

/**
 * The agent an agent picker chooses. From the list or by ID: the ID as given (checked, not fetched).
 * By name: the one agent of exactly that name; none, or several, is an error naming the name. The
 * service cannot filter agents by name, so the list is read once per node run and shared by its items.
 */
export async function resolveAgent(
	context: VoiceAgentContext,
	locator: AgentLocatorValue | string | undefined,
	options: ResolveAgentOptions = {},
): Promise<ResolvedAgent> {
	const field = options.field ?? 'Agent';
	const validate = new InputValidator(context.getNode(), options.itemIndex ?? 0);
	const { mode, value } =
		typeof locator === 'object' && locator !== null ? locator : { mode: 'id', value: locator };
	if (mode === BY_NAME) {
		const name = validate.nonEmptyString(value, field, INPUT_LIMITS.nameLength);
		const agent = await agentNamed(context, name, options);
		return { id: agent.id, agent };
	}
	return { id: validate.id(value, field) };
}

/** The ID of the agent an agent picker chooses (see `resolveAgent`). */
export async function resolveAgentId(
	context: VoiceAgentContext,
	locator: AgentLocatorValue | string | undefined,
	options: ResolveAgentOptions = {},
): Promise<string> {
	return (await resolveAgent(context, locator, options)).id;
}
