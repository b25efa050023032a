import type { INodeProperties } from 'n8n-workflow';

import type { CallFilter } from '../api/calls';
import type { RequestOptions } from '../transport/types';
import { InputValidator } from '../validation';
import { agentLocator, readOptionalAgentId } from './agent';
import { filtersCollection } from './collections';
import { nodeParameter, type ParameterContext } from './nodeParameter';

const clientNumberFilter: INodeProperties = {
	displayName: 'Client Number',
	name: 'clientNumber',
	type: 'string',
	default: '',
	placeholder: 'e.g. +14155550123',
	description: 'Only calls with this customer phone number (E.164)',
};

/**
 * The filters of the call list (GET /calls), as Call → Get Many and the call history trigger offer
 * them: the agent (optional) and the customer's number.
 */
export function callListFilters(): INodeProperties[] {
	return [
		agentLocator({
			required: false,
			description: 'Only calls of this agent. Leave empty for the calls of all agents.',
		}),
		filtersCollection([clientNumberFilter]),
	];
}

/** The call list's filters: an agent given by name is resolved, a client number checked, before anything is listed. */
export async function readCallFilter(
	context: ParameterContext,
	options: { itemIndex?: number; request?: RequestOptions } = {},
): Promise<CallFilter> {
	const filter: CallFilter = {};
	const agentId = await readOptionalAgentId(context, options);
	if (agentId !== undefined) filter.agentId = agentId;
	const filters = nodeParameter(context, 'filters', options.itemIndex, {}) as {
		clientNumber?: unknown;
	};
	const clientNumber = filters?.clientNumber;
	if (typeof clientNumber === 'string' && clientNumber.trim() !== '') {
		const validate = new InputValidator(context.getNode(), options.itemIndex);
		filter.clientNumber = validate.e164(clientNumber, clientNumberFilter.displayName);
	}
	return filter;
}
