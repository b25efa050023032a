import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { agentLocator } from '../../descriptions/shared';
import { requiredLocatorId } from '../../helpers/parameters';
import { voiceAgentApiRequest } from '../../transport';

const properties: INodeProperties[] = [agentLocator({ description: 'The agent to delete' })];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['delete'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requiredLocatorId(this, 'agent', 'Agent', itemIndex);
	// Deleting is idempotent in effect, but a retry after a lost answer meets a 404: that is reported,
	// since the node cannot tell it apart from an ID that never existed.
	await voiceAgentApiRequest(this, {
		method: 'DELETE',
		path: '/agent',
		qs: { id },
		idempotent: true,
		notFound: `Agent "${id}"`,
	});
	return { deleted: true, id };
}
