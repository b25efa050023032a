import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteAgent } from '../../../shared/api/agents';
import { agentLocator, readAgentId } from '../../../shared/parameters/agent';

const properties: INodeProperties[] = [agentLocator({ description: 'The agent to delete' })];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['delete'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = await readAgentId(this, { itemIndex });
	await deleteAgent(this, id);
	return { deleted: true, id };
}
