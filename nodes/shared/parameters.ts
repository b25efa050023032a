import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { CallFilter } from './api';
import type { RequestOptions, VoiceAgentContext } from './transport';
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

/**
 * The call list's filters from the values of `callListFilters` (the agent picker and the Filters
 * collection): an agent given by name is resolved, a client number checked, before anything is listed.
 */
export async function readCallFilter(
	context: VoiceAgentContext,
	agent: AgentLocatorValue | undefined,
	filters: IDataObject | undefined,
	options: { itemIndex?: number; request?: RequestOptions } = {},
): Promise<CallFilter> {
	const filter: CallFilter = {};
	if (typeof agent?.value === 'string' && agent.value.trim() !== '')
		filter.agentId = await resolveAgentId(context, agent, options);
	const clientNumber = filters?.clientNumber;
	if (typeof clientNumber === 'string' && clientNumber.trim() !== '') {
		const validate = new InputValidator(context.getNode(), options.itemIndex);
		filter.clientNumber = validate.e164(clientNumber, 'Client Number');
	}
	return filter;
}
