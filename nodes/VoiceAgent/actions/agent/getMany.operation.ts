import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { agentPages, listAgents } from '../../../shared/api/agents';
import { filtersCollection } from '../../../shared/parameters/collections';
import { readLimit, returnAllOrLimit } from '../../../shared/parameters/returnAllOrLimit';
import type { Agent } from '../../../shared/types';
import { INPUT_LIMITS, InputValidator } from '../../../shared/validation';
import { simplifyAgent, simplifyEnabled, simplifyOption } from './simplify';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	filtersCollection([
		{
			displayName: 'Name Contains',
			name: 'nameContains',
			type: 'string',
			default: '',
			placeholder: 'e.g. Reminder',
			description:
				'Only agents whose name contains this text, ignoring case. The service cannot filter by name, so the node reads the agent list page by page and keeps the matches (with a Limit, until it has that many).',
		},
	]),
	simplifyOption('getMany'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['getMany'] } },
	properties,
);

/** Agents whose name contains `needle` (lower case), read page by page until `max` match. */
async function agentsNamedLike(
	context: IExecuteFunctions,
	needle: string,
	max: number | undefined,
): Promise<Agent[]> {
	const matches: Agent[] = [];
	for await (const agents of agentPages(context)) {
		for (const agent of agents) {
			if (!agent.name.toLowerCase().includes(needle)) continue;
			matches.push(agent);
			if (matches.length === max) return matches;
		}
	}
	return matches;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Agent[]> {
	const max = readLimit(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const validate = new InputValidator(this.getNode(), itemIndex);
	const needle = validate
		.text(filters.nameContains ?? '', 'Name Contains', INPUT_LIMITS.nameLength)
		.trim()
		.toLowerCase();
	const simplify = simplifyEnabled(this, itemIndex);
	const agents =
		needle === '' ? await listAgents(this, max) : await agentsNamedLike(this, needle, max);
	return simplify ? agents.map(simplifyAgent) : agents;
}
