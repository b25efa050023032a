import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { callIdField } from '../../descriptions/shared';
import type { Call } from '../../helpers/types';
import { InputValidator } from '../../helpers/validation';
import { voiceAgentApiRequest } from '../../transport';

const properties: INodeProperties[] = [
	callIdField('ID of the call to retrieve, with its transcript once it has ended'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['get'] } },
	properties,
);

export async function getCall(context: IExecuteFunctions, id: string): Promise<Call> {
	return await voiceAgentApiRequest<Call>(context, {
		method: 'GET',
		path: '/call',
		qs: { id },
		idempotent: true,
		notFound: `Call "${id}"`,
	});
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Call> {
	const id = new InputValidator(this.getNode(), itemIndex).nonEmptyString(
		this.getNodeParameter('callId', itemIndex),
		'Call ID',
	);
	return await getCall(this, id);
}
