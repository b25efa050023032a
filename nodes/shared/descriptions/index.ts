import type { INodeProperties } from 'n8n-workflow';

/**
 * The agent picker used wherever an agent is chosen: from a searchable list, by its ID, or by its
 * exact name (resolved with `resolveAgent`; what a CRM row or an AI model knows).
 */
export function agentLocator(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Agent',
		name: 'agent',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The voice agent',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select an agent...',
				typeOptions: { searchListMethod: 'searchAgents', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. agt_3f9a2c7d1b8e4f60',
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. Renewal Reminder',
				hint: 'The exact name of one agent',
			},
		],
		...overrides,
	};
}

/** "Return All" and "Limit", as every list operation in n8n offers them. */
export function returnAllOrLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** The ID of one call, as Call → Get and Call → Set Context take it. */
export function callIdField(description: string): INodeProperties {
	return {
		displayName: 'Call ID',
		name: 'callId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. call_8d0b6a4f2e1c9a73',
		description,
	};
}

/** The "Options" collection of an operation or trigger: settings a user adds only when needed. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/**
 * The filters of the call list (GET /calls), as Call → Get Many and the call history trigger offer them:
 * the agent (optional) and the customer's number. `readCallFilter` reads them.
 */
export function callListFilters(): INodeProperties[] {
	return [
		agentLocator({
			required: false,
			description: 'Only calls of this agent. Leave empty for the calls of all agents.',
		}),
		filtersCollection([
			{
				displayName: 'Client Number',
				name: 'clientNumber',
				type: 'string',
				default: '',
				placeholder: 'e.g. +14155550123',
				description: 'Only calls with this customer phone number (E.164)',
			},
		]),
	];
}

/** The "Filters" collection of a list operation or trigger. */
export function filtersCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options,
	};
}
