import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../validation';

const LABEL = 'Call ID';

/** The ID of one call, as Call → Get and Call → Set Context take it. */
export function callIdField(description: string): INodeProperties {
	return {
		displayName: LABEL,
		name: 'callId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. call_8d0b6a4f2e1c9a73',
		description,
	};
}

/** The Call ID of the item, checked. */
export function readCallId(
	context: IExecuteFunctions,
	validate: InputValidator,
	itemIndex: number,
): string {
	return validate.id(context.getNodeParameter('callId', itemIndex), LABEL);
}
