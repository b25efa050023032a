import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getAgent } from '../../../shared/api/agents';
import { agentLocator, readAgentId } from '../../../shared/parameters/agent';
import type { Agent } from '../../../shared/types';
import { simplifyAgent, simplifyEnabled, simplifyOption } from './simplify';

const properties: INodeProperties[] = [
	agentLocator({ description: 'The agent to retrieve' }),
	simplifyOption('get'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Agent> {
	const simplify = simplifyEnabled(this, itemIndex);
	const agent = await getAgent(this, await readAgentId(this, { itemIndex }));
	return simplify ? simplifyAgent(agent) : agent;
}
