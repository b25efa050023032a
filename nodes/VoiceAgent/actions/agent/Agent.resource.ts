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

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['agent'] } },
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
				description: 'Delete an agent',
				action: 'Delete an agent',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Retrieve an agent',
				action: 'Get an agent',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List agents, newest first',
				action: 'Get many agents',
			},
		],
		default: 'upsert',
	},
	...upsert.description,
	...get.description,
	...getMany.description,
	...deleteAgent.description,
];
