import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Agent } from '../../helpers/types';
import { InputValidator } from '../../helpers/validation';
import { voiceAgentApiRequest } from '../../transport';

const LLM_MODELS = ['gpt-4o', 'service-voice'] as const;

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
							{ displayName: 'Name', name: 'name', type: 'string', default: '' },
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
							{ displayName: 'Name', name: 'name', type: 'string', default: '' },
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
				displayName: 'Endpointing (Ms)',
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
				options: [
					{ name: 'GPT-4o', value: 'gpt-4o' },
					{ name: 'Service Voice', value: 'service-voice' },
				],
				default: 'gpt-4o',
				description: 'Language model the agent thinks with',
			},
			{
				displayName: 'Smart Endpointing Threshold',
				name: 'smartEndpointingThreshold',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
			},
			{
				displayName: 'System Prompt',
				name: 'systemPrompt',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				description: "Instructions that define the agent's persona and task",
			},
			{
				displayName: 'Tools (JSON)',
				name: 'tools',
				type: 'json',
				default: '[]',
				description:
					'Tools the agent can call, as a JSON array of function tools: [{"type": "function", "function": {"name", "description", "parameters"}}]',
			},
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

interface ActionInput {
	name?: string;
	instructions?: string;
	forwardingNumber?: string;
}

interface ComplianceCheckInput {
	name?: string;
	model?: string;
	checkInstructions?: string;
	rewriteThreshold?: number;
}

/** Builds the POST /agent body from the parameters the user set, validating each one. */
function buildAgentBody(
	validate: InputValidator,
	name: unknown,
	areaCode: unknown,
	fields: IDataObject,
): IDataObject {
	const body: IDataObject = { name: validate.nonEmptyString(name, 'Name') };
	if (typeof areaCode === 'number' || (typeof areaCode === 'string' && areaCode.trim() !== '')) {
		body.area_code = validate.areaCode(areaCode, 'Area Code');
	}
	const text: Array<[string, string]> = [
		['systemPrompt', 'system_prompt'],
		['initialMessage', 'initial_message'],
		['voiceId', 'voice_id'],
		['language', 'language'],
	];
	for (const [field, key] of text) {
		if (fields[field] !== undefined) body[key] = String(fields[field]);
	}
	if (fields.llmModel !== undefined)
		body.llm_model = validate.oneOf(fields.llmModel, 'LLM Model', LLM_MODELS);
	if (fields.webhook !== undefined)
		body.webhook = validate.urlOrEmpty(fields.webhook, 'Webhook URL');
	if (fields.tools !== undefined)
		body.tools = validate.jsonArrayOfObjects(fields.tools, 'Tools (JSON)');
	if (fields.fillerWords !== undefined) body.filler_words = fields.fillerWords === true;
	if (fields.fillerWordsWhitelist !== undefined) {
		body.filler_words_whitelist = validate.stringList(
			fields.fillerWordsWhitelist,
			'Filler Words Whitelist',
		);
	}
	if (fields.voicemailNumber !== undefined) {
		// Empty clears the number, as the service allows.
		body.voicemail_number =
			String(fields.voicemailNumber).trim() === ''
				? ''
				: validate.e164(fields.voicemailNumber, 'Voicemail Number');
	}
	if (fields.endpointing !== undefined)
		body.endpointing = validate.integer(fields.endpointing, 'Endpointing (Ms)', 0);
	if (fields.voiceOptimization !== undefined) {
		body.voice_optimization = validate.integer(
			fields.voiceOptimization,
			'Voice Optimization',
			0,
			4,
		);
	}
	if (fields.smartEndpointingThreshold !== undefined) {
		body.smart_endpointing_threshold = validate.integer(
			fields.smartEndpointingThreshold,
			'Smart Endpointing Threshold',
			0,
		);
	}
	if (fields.actions !== undefined) {
		const actions = ((fields.actions as IDataObject).action ?? []) as ActionInput[];
		body.actions = actions.map((action, n) => ({
			name: validate.nonEmptyString(action.name, `Actions ${n + 1}: Name`),
			instructions: action.instructions ?? '',
			forwarding_number: validate.e164(
				action.forwardingNumber,
				`Actions ${n + 1}: Forwarding Number`,
			),
		}));
	}
	if (fields.complianceChecks !== undefined) {
		const checks = ((fields.complianceChecks as IDataObject).check ?? []) as ComplianceCheckInput[];
		body.compliance_checks = checks.map((check, n) => ({
			name: validate.nonEmptyString(check.name, `Compliance Checks ${n + 1}: Name`),
			model: validate.nonEmptyString(check.model, `Compliance Checks ${n + 1}: Model`),
			check_instructions: check.checkInstructions ?? '',
			rewrite_threshold: validate.integer(
				check.rewriteThreshold ?? 0,
				`Compliance Checks ${n + 1}: Rewrite Threshold`,
				0,
			),
		}));
	}
	return body;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body = buildAgentBody(
		new InputValidator(this.getNode(), itemIndex),
		this.getNodeParameter('name', itemIndex),
		this.getNodeParameter('areaCode', itemIndex, ''),
		this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
	);
	return await voiceAgentApiRequest<Agent>(this, {
		method: 'POST',
		path: '/agent',
		body,
		// An upsert by name: sending it twice leaves the same agent as sending it once.
		idempotent: true,
	});
}
