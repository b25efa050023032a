import type { IExecuteFunctions } from 'n8n-workflow';

import { resolveAgentId, type AgentLocatorValue } from './resolveAgent';
import { InputValidator } from './validation';

/** The ID of the agent an agent picker parameter chooses, a name resolved (see `resolveAgent`). */
export async function agentIdParameter(
	context: IExecuteFunctions,
	itemIndex: number,
	parameter = 'agent',
	field = 'Agent',
): Promise<string> {
	const locator = context.getNodeParameter(parameter, itemIndex) as AgentLocatorValue;
	return await resolveAgentId(context, locator, { field, itemIndex });
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
