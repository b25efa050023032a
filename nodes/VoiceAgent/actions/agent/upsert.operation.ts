import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { upsertAgent } from '../../../shared/api/agents';
import type { Agent } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { labelsOf } from '../../../shared/fields';
import { AGENT_BODY_FIELDS, buildAgentBody, LLM_MODELS } from './agentBody';
import { removeAllToolsField, toolsField } from './agentTools';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Appointment Reminder',
		description:
			'Name of the agent. The service identifies agents by name: an agent with this name is updated, otherwise a new one is created.',
	},
	{
		displayName: 'Area Code',
		name: 'areaCode',
		type: 'string',
		default: '',
		placeholder: 'e.g. 415',
		description:
			'Three-digit area code of the phone number the service assigns to a new agent. Required when the agent is new; ignored when it already exists.',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description:
			'Only the fields added here are sent: the others keep their values on an existing agent',
		options: [
			{
				displayName: 'Actions',
				name: 'actions',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add Action',
				description:
					"Actions the agent can take, such as forwarding the call. Replaces the agent's actions.",
				options: [
					{
						displayName: 'Action',
						name: 'action',
						values: [
							{
								displayName: 'Name',
								name: 'name',
								type: 'string',
								default: '',
								description: 'A short name for the action, e.g. transfer_to_sales',
							},
							{
								displayName: 'Instructions',
								name: 'instructions',
								type: 'string',
								typeOptions: { rows: 2 },
								default: '',
								description: 'When and how the agent takes this action',
							},
							{
								displayName: 'Forwarding Number',
								name: 'forwardingNumber',
								type: 'string',
								default: '',
								placeholder: 'e.g. +14155550123',
								description: 'Phone number (E.164) the call is forwarded to',
							},
						],
					},
				],
			},
			{
				displayName: 'Compliance Checks',
				name: 'complianceChecks',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add Compliance Check',
				description: "Checks run on the agent's responses. Replaces the agent's compliance checks.",
				options: [
					{
						displayName: 'Check',
						name: 'check',
						values: [
							{
								displayName: 'Name',
								name: 'name',
								type: 'string',
								default: '',
								description: 'A short name for the check, e.g. no_price_promises',
							},
							{
								displayName: 'Model',
								name: 'model',
								type: 'string',
								default: 'gpt-4o',
								description: 'Language model that performs the check',
							},
							{
								displayName: 'Check Instructions',
								name: 'checkInstructions',
								type: 'string',
								typeOptions: { rows: 2 },
								default: '',
								description: "What the check looks for in each of the agent's responses",
							},
							{
								displayName: 'Rewrite Threshold',
								name: 'rewriteThreshold',
								type: 'number',
								typeOptions: { minValue: 0 },
								default: 0,
								description: 'Score above which a response is rewritten',
							},
						],
					},
				],
			},
			{
				displayName: 'Endpointing (Milliseconds)',
				name: 'endpointing',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description: 'Milliseconds the agent waits before finalizing what the caller said',
			},
			{
				displayName: 'Filler Words',
				name: 'fillerWords',
				type: 'boolean',
				default: false,
				description: 'Whether the agent uses filler words such as "um" to sound natural',
			},
			{
				displayName: 'Filler Words Whitelist',
				name: 'fillerWordsWhitelist',
				type: 'string',
				default: '',
				placeholder: 'e.g. um, well, let me see',
				description: 'Filler words the agent may use, separated by commas',
			},
			{
				displayName: 'Initial Message',
				name: 'initialMessage',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				description: 'First thing the agent says on a call',
			},
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: 'en',
				placeholder: 'e.g. en',
				description: 'Language code, such as en or es',
			},
			{
				displayName: 'LLM Model',
				name: 'llmModel',
				type: 'options',
				options: [...LLM_MODELS],
				default: 'gpt-4o',
				description: 'Language model the agent thinks with',
			},
			removeAllToolsField,
			{
				displayName: 'Smart Endpointing Threshold',
				name: 'smartEndpointingThreshold',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Threshold of smart endpointing, how the service tells that the caller has finished speaking',
			},
			{
				displayName: 'System Prompt',
				name: 'systemPrompt',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				description: "Instructions that define the agent's persona and task",
			},
			toolsField,
			{
				displayName: 'Voice ID',
				name: 'voiceId',
				type: 'string',
				default: '',
				description: 'Identifier of the voice the agent speaks with',
			},
			{
				displayName: 'Voice Optimization',
				name: 'voiceOptimization',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 4 },
				default: 0,
				description: 'Latency optimization from 0 to 4; 4 is the fastest and lowest quality',
			},
			{
				displayName: 'Voicemail Number',
				name: 'voicemailNumber',
				type: 'string',
				default: '',
				placeholder: 'e.g. +14155550123',
				description:
					'Phone number (E.164) called before the agent takes over as the AI voicemail. An empty value removes it.',
			},
			{
				displayName: 'Webhook URL',
				name: 'webhook',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://example.com/voice-agent-events',
				description:
					"URL the service sends the agent's events to. An empty value removes it. A Voice Agent Trigger manages this field by itself.",
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['upsert'] } },
	properties,
);

/** The labels of POST /agent's fields, as the parameters above show them. */
export const AGENT_FIELDS = labelsOf(properties, AGENT_BODY_FIELDS);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Agent> {
	const body = buildAgentBody(
		new InputValidator(this.getNode(), itemIndex),
		AGENT_FIELDS,
		this.getNodeParameter('name', itemIndex),
		this.getNodeParameter('areaCode', itemIndex, ''),
		this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
	);
	return await upsertAgent(this, body, { fields: AGENT_FIELDS });
}
