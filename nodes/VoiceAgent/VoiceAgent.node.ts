import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as agent from './actions/agent/Agent.resource';
import * as call from './actions/call/Call.resource';
import { router } from './actions/router';
import { toolDescriptionProperties } from './actions/toolDescription';
import { voiceAgentCredentials } from '../shared/credential';
import { credentialTest, listSearch } from '../shared/methods';

export class VoiceAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice Agent',
		name: 'voiceAgent',
		icon: {
			light: 'file:../../icons/voiceAgent.svg',
			dark: 'file:../../icons/voiceAgent.dark.svg',
		},
		group: ['transform'],
		// 1.1: the default operation is a read; 1.2: Call → Create skips a number its agent called in the
		// last minutes (a re-run, a redelivery), and Agent → Get and Get Many simplify by default; 1.3:
		// Call → Create has Calling Hours and Call Again, and every item it outputs says its outcome; 1.4:
		// Call → Create's Calls at Once and Max New Calls per Minute bound the node in this n8n process, not
		// one run (all executions of the node at once share them), and a call never seen to end lets its
		// Calls at Once slot go after Max Wait twice, by default.
		version: [1, 1.1, 1.2, 1.3, 1.4],
		defaultVersion: 1.4,
		// The chosen operation's action as the node panel words it, written out because n8n's lint requires a literal.
		subtitle:
			'={{ {"agent:upsert": "Create or update an agent", "agent:delete": "Delete an agent", "agent:get": "Get an agent", "agent:getMany": "Get many agents", "call:create": "Create a real phone call", "call:get": "Get a call", "call:getMany": "Get many calls", "call:setContext": "Set the context of a live call"}[$parameter["resource"] + ":" + $parameter["operation"]] }}',
		description:
			'Voice agents and their phone calls: place real phone calls, create or update agents, read transcripts and push context into live calls',
		defaults: { name: 'Voice Agent' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: voiceAgentCredentials,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Agent', value: 'agent' },
					{ name: 'Call', value: 'call' },
				],
				default: 'call',
			},
			...agent.description,
			...call.description,
			...toolDescriptionProperties,
		],
	};

	methods = { credentialTest, listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
