import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { getAgentsPage } from '../api';

/**
 * Agents for the "From List" picker, one page of the service's list at a time. The service cannot
 * filter by name, so the filter applies to each page and n8n asks for the next page as needed.
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
	return { results, paginationToken: page.cursor };
}
