import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { agentLocator } from '../../descriptions/shared';
import { requiredLocatorId } from '../../helpers/parameters';
import type { Agent } from '../../helpers/types';
import { voiceAgentApiRequest } from '../../transport';

const properties: INodeProperties[] = [agentLocator({ description: 'The agent to retrieve' })];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Agent> {
	const id = requiredLocatorId(this, 'agent', 'Agent', itemIndex);
	return await voiceAgentApiRequest<Agent>(this, {
		method: 'GET',
		path: '/agent',
		qs: { id },
		idempotent: true,
		notFound: `Agent "${id}"`,
	});
}
