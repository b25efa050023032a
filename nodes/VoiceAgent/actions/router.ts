import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { partialOutputOf } from '../../shared/partialOutput';
import * as agent from './agent/Agent.resource';
import * as call from './call/Call.resource';
import type { VoiceAgentOperation } from './operation';

const resources: Record<string, Record<string, VoiceAgentOperation>> = {
	agent: agent.operations,
	call: call.operations,
};

/** Runs the chosen operation once per input item; each output item is paired with its input. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" is not known`,
		);
	}

	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await operation.execute.call(this, itemIndex);
			const executionData = this.helpers.constructExecutionMetaData(
				this.helpers.returnJsonArray(result),
				{ itemData: { item: itemIndex } },
			);
			for (const entry of executionData) output.push(entry);
		} catch (error) {
			if (this.continueOnFail()) {
				// An operation that got part of its output before some parts failed returns what it got,
				// and an error item per failed part.
				const partial = partialOutputOf(error);
				const json = partial
					? [...partial.items, ...partial.errors]
					: [{ error: (error as Error).message }];
				for (const entry of json) output.push({ json: entry, pairedItem: { item: itemIndex } });
				continue;
			}
			if (error instanceof NodeApiError) {
				error.context.itemIndex ??= itemIndex;
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			}
			if (error instanceof NodeOperationError) error.context.itemIndex ??= itemIndex;
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	}
	return [output];
}
