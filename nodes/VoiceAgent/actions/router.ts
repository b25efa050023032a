import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { configurationError } from '../../shared/errors';
import * as agent from './agent/Agent.resource';
import * as call from './call/Call.resource';
import { failedItemOutput } from './itemFailure';
import type { VoiceAgentOperation } from './operation';

const resources: Record<string, Record<string, VoiceAgentOperation>> = {
	agent: agent.operations,
	call: call.operations,
};

/**
 * Runs the chosen operation once per input item, or once for all items when it schedules them itself
 * (`executeAll`); each output item is paired with its input.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.[operationName];
	if (!operation) {
		throw configurationError(this.getNode(), {
			message: `The operation "${operationName}" of "${resource}" is not known`,
		});
	}
	if ('executeAll' in operation) return [await operation.executeAll.call(this)];

	const items = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await operation.execute.call(this, itemIndex);
			// One pass, one object per output item (a Return All may output 100,000): what n8n's
			// returnJsonArray and constructExecutionMetaData would build in three.
			const pairedItem = { item: itemIndex };
			if (Array.isArray(result)) for (const json of result) output.push({ json, pairedItem });
			else output.push({ json: result, pairedItem });
		} catch (error) {
			output.push(...failedItemOutput(this, itemIndex, error));
		}
	}
	return [output];
}
