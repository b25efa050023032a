import type { INodeProperties } from 'n8n-workflow';

import type { VoiceAgentOperation } from '../operation';
import * as deleteAgent from './delete.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as upsert from './upsert.operation';

export const operations: Record<string, VoiceAgentOperation> = {
	upsert,
	get,
	getMany,
	delete: deleteAgent,
};

/** From version 1.1 the default is a read: an AI Agent may run the node as configured. */
const operation: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['agent'], '@version': [{ _cnd: { gte: 1.1 } }] } },
	options: [
		{
			name: 'Create or Update',
			value: 'upsert',
			description:
				'Create a new agent with this name, or update the current one if it already exists (upsert)',
			action: 'Create or update an agent',
		},
		{
			name: 'Delete',
			value: 'delete',
			description: 'Deletes an agent for good: it places and takes no more calls',
			action: 'Delete an agent',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Reads one agent; changes nothing',
			action: 'Get an agent',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'Lists agents, newest first; changes nothing',
			action: 'Get many agents',
		},
	],
	default: 'get',
};

export const description: INodeProperties[] = [
	operation,
	// Version 1 defaulted to Create or Update; its saved nodes keep that default (see Call.resource.ts).
	{
		...operation,
		default: 'upsert',
		displayOptions: { show: { resource: ['agent'], '@version': [1] } },
	},
	...upsert.description,
	...get.description,
	...getMany.description,
	...deleteAgent.description,
];
