import type { INodeProperties } from 'n8n-workflow';

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
