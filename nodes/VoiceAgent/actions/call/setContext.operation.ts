import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { setCallContext } from '../../../shared/api';
import { callIdField } from '../../../shared/descriptions';
import type { Call } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';

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
	const id = validate.id(this.getNodeParameter('callId', itemIndex), 'Call ID');
	const context = this.getNodeParameter('context', itemIndex);
	validate.nonEmptyString(context, 'Context');
	return await setCallContext(this, id, validate.text(context, 'Context'));
}
