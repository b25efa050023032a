import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * What a failed item becomes: with "On Error → Continue", one error item paired with it; otherwise
 * the error, naming the item, which stops the node. The node's own errors are thrown as they are.
 */
export function failedItemOutput(
	context: IExecuteFunctions,
	itemIndex: number,
	error: unknown,
): INodeExecutionData[] {
	if (context.continueOnFail()) {
		return [{ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } }];
	}
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		throw error;
	}
	throw new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
