import type { IExecuteFunctions } from 'n8n-workflow';

import { InputValidator } from './validation';

/** The ID behind a resource locator parameter, checked before anything is sent. */
export function requiredLocatorId(
	context: IExecuteFunctions,
	parameter: string,
	label: string,
	itemIndex: number,
): string {
	const value = context.getNodeParameter(parameter, itemIndex, '', { extractValue: true });
	return new InputValidator(context.getNode(), itemIndex).id(value, label);
}

/** Max items to return for a list operation, or undefined for "Return All". */
export function listLimit(context: IExecuteFunctions, itemIndex: number): number | undefined {
	if (context.getNodeParameter('returnAll', itemIndex, false) === true) return undefined;
	return new InputValidator(context.getNode(), itemIndex).integer(
		context.getNodeParameter('limit', itemIndex, 50),
		'Limit',
		1,
	);
}
