import type { INodeProperties } from 'n8n-workflow';

import type { VoiceAgentOperation } from '../operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as setContext from './setContext.operation';

export const operations: Record<string, VoiceAgentOperation> = { create, get, getMany, setContext };

/** From version 1.1 the default is a read: an AI Agent may run the node as configured. */
const operation: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['call'], '@version': [{ _cnd: { gte: 1.1 } }] } },
	options: [
		{
			name: 'Create',
			value: 'create',
			description:
				"Places a real phone call from the agent's number to the number given, only to numbers in Allowed Destinations; as an AI tool it calls nobody without them, at most Max Calls per Run times per execution and at most Max Calls per Hour times an hour per agent",
			action: 'Create a real phone call',
		},
		{
			name: 'Get',
			value: 'get',
			description:
				'Reads one call, with its transcript once it has ended (optionally waiting for its end); changes nothing',
			action: 'Get a call',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'Lists calls, newest first, optionally with transcripts; changes nothing',
			action: 'Get many calls',
		},
		{
			name: 'Set Context',
			value: 'setContext',
			description:
				'Changes what the agent knows during a call in progress; the agent uses it at once. Only calls with numbers in Allowed Destinations; as an AI tool none without them.',
			action: 'Set the context of a live call',
		},
	],
	default: 'get',
};

export const description: INodeProperties[] = [
	operation,
	// Version 1 defaulted to placing a call. Saved workflows leave out a parameter at its default, so
	// version 1 keeps its own: its nodes still do what they did.
	{
		...operation,
		default: 'create',
		displayOptions: { show: { resource: ['call'], '@version': [1] } },
	},
	...create.description,
	...get.description,
	...getMany.description,
	...setContext.description,
];
