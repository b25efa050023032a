import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { partialOutputOf } from '../../shared/partialOutput';

/**
 * What a failed item becomes: with "On Error → Continue", its output (what it got before some parts
 * failed, and an error item per failed part, or one error item), paired with it; otherwise the error,
 * naming the item, which stops the node.
 */
export function failedItemOutput(
	context: IExecuteFunctions,
	itemIndex: number,
	error: unknown,
): INodeExecutionData[] {
	if (context.continueOnFail()) {
		const partial = partialOutputOf(error);
		const json = partial
			? [...partial.items, ...partial.errors]
			: [{ error: (error as Error).message }];
		return json.map((entry) => ({ json: entry, pairedItem: { item: itemIndex } }));
	}
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		throw error;
	}
	throw new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
