import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { callIdField } from '../../descriptions/shared';
import type { Call } from '../../helpers/types';
import { InputValidator } from '../../helpers/validation';
import { voiceAgentApiRequest } from '../../transport';

const properties: INodeProperties[] = [
	callIdField('ID of a call in progress'),
	{
		displayName: 'Context',
		name: 'context',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		description:
			'The new context for the agent, replacing the current one while the call goes on. Only calls in progress accept it.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['setContext'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Call> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const id = validate.nonEmptyString(this.getNodeParameter('callId', itemIndex), 'Call ID');
	const context = this.getNodeParameter('context', itemIndex);
	validate.nonEmptyString(context, 'Context');
	return await voiceAgentApiRequest<Call>(this, {
		method: 'POST',
		path: '/call/context',
		body: { id, context: String(context) },
		// Replacing the context with the same text twice leaves the call as once.
		idempotent: true,
		notFound: `Call "${id}"`,
	});
}
