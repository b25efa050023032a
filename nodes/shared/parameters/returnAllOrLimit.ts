import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InputValidator } from '../validation';

const limitProperty: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

/** "Return All" and "Limit", as every list operation in n8n offers them. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	limitProperty,
];

/** Max items to return, or undefined for "Return All". */
export function readLimit(context: IExecuteFunctions, itemIndex: number): number | undefined {
	if (context.getNodeParameter('returnAll', itemIndex, false) === true) return undefined;
	return new InputValidator(context.getNode(), itemIndex).integer(
		context.getNodeParameter('limit', itemIndex, limitProperty.default),
		limitProperty.displayName,
		1,
	);
}
