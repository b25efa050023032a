import type { INodeProperties } from 'n8n-workflow';

import type { VoiceAgentOperation } from '../operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as setContext from './setContext.operation';

export const operations: Record<string, VoiceAgentOperation> = { create, get, getMany, setContext };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['call'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Have an agent phone a number',
				action: 'Create a call',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Retrieve a call with its transcript',
				action: 'Get a call',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List calls, newest first, optionally with transcripts',
				action: 'Get many calls',
			},
			{
				name: 'Set Context',
				value: 'setContext',
				description: 'Replace the context of a call in progress',
				action: 'Set the context of a call',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getMany.description,
	...setContext.description,
];
