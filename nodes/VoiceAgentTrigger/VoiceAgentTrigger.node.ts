import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { voiceAgentCredentials } from '../shared/credential';
import { agentLocator } from '../shared/parameters/agent';
import { optionsCollection } from '../shared/parameters/collections';
import { credentialTest, listSearch } from '../shared/methods';
import { transcriptFormatOption } from '../shared/parameters/transcriptFormat';
import { receiveEvent } from './events';
import { checkExists, create, deleteWebhook } from './registration';
import { tokenRotationOption } from './webhookToken';

export class VoiceAgentTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice Agent Trigger',
		name: 'voiceAgentTrigger',
		icon: {
			light: 'file:../../icons/voiceAgent.svg',
			dark: 'file:../../icons/voiceAgent.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ ($parameter["events"] || []).map(event => ({"call_started": "Call Started", "call_ended": "Call Ended", "tool_call": "Tool Call", "action": "Action"})[event] || event).join(", ") }}',
		// n8n's node panel merges this trigger and the Voice Agent node into one entry, described by this text.
		description:
			'Voice agents and their phone calls: place real phone calls and read transcripts; start a workflow when a call starts or ends, or when the agent calls a tool',
		defaults: { name: 'Voice Agent Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: voiceAgentCredentials,
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: '={{$parameter["responseMode"]}}',
				// Without it n8n answers "Immediately" with the literal text firstEntryJson; empty lets the
				// node's own acknowledgement through, and the last node's first item answers otherwise.
				responseData: '={{$parameter["responseMode"] === "onReceived" ? "" : "firstEntryJson"}}',
				path: 'events',
			},
		],
		properties: [
			{
				displayName:
					"Starts the workflow the moment an agent's call starts or ends, or it calls a tool. The agent has one webhook: while this workflow is published or listens for a test event, its events come here; unpublishing puts the previous webhook back. For a scheduled export or report of calls, use the Voice Agent Call History Trigger.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			agentLocator({ description: 'The agent whose events start this workflow' }),
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: [
					{
						name: 'Action',
						value: 'action',
						description: 'The agent takes one of its actions during a call (e.g. forwards it)',
					},
					{
						name: 'Call Ended',
						value: 'call_ended',
						description: 'A call has ended, with its transcript',
					},
					{ name: 'Call Started', value: 'call_started', description: 'A call has started' },
					{
						name: 'Tool Call',
						value: 'tool_call',
						description: 'The agent calls one of its tools during a call',
					},
				],
				default: ['call_started', 'call_ended', 'tool_call'],
				description: 'The events that start the workflow; others are acknowledged and ignored',
			},
			{
				displayName: 'Respond',
				name: 'responseMode',
				type: 'options',
				options: [
					{
						name: 'Immediately',
						value: 'onReceived',
						description: 'As soon as the event arrives, with {"received": true}',
					},
					{
						name: 'When Last Node Finishes',
						value: 'lastNode',
						description: 'With the data of the last node executed, e.g. the answer to a tool call',
					},
					{
						name: "Using 'Respond to Webhook' Node",
						value: 'responseNode',
						description: 'With what a Respond to Webhook node in the workflow sends',
					},
				],
				default: 'onReceived',
				description: 'When and how to answer the service',
			},
			optionsCollection([
				{
					displayName: 'Include Call Details',
					name: 'includeCallDetails',
					type: 'boolean',
					default: false,
					description:
						'Whether to output the whole call (transcript, duration) for Call Ended events as "call": the call the event carries, or else fetched (only calls of this agent). When it cannot be had, the event still runs and "call_details_skipped" says why.',
				},
				transcriptFormatOption({
					description: 'How to output the transcript of the call under "call"',
					displayOptions: { show: { includeCallDetails: [true] } },
				}),
				{
					displayName: 'Replace Existing Webhook',
					name: 'replaceExistingWebhook',
					type: 'boolean',
					default: false,
					description:
						'Whether to take over an agent whose webhook points to another URL. The previous URL is put back when the workflow is unpublished or stops listening for a test event.',
				},
				tokenRotationOption,
			]),
		],
	};

	methods = { credentialTest, listSearch };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteWebhook.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveEvent.call(this);
	}
}
