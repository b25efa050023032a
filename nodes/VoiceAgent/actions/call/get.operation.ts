import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCall } from '../../../shared/api';
import { callIdField } from '../../../shared/descriptions';
import type { Call } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';

const properties: INodeProperties[] = [
	callIdField('ID of the call to retrieve, with its transcript once it has ended'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Call> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	return await getCall(this, validate.id(this.getNodeParameter('callId', itemIndex), 'Call ID'));
}
