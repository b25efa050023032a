import type { IDataObject } from 'n8n-workflow';

import { fieldName, type FieldLabels } from '../../../shared/fields';
import { INPUT_LIMITS, type InputValidator } from '../../../shared/validation';
import { toolsOf, type Named } from './agentTools';

/** The models the service accepts on upsert; listings may show older ones, passed through untouched. */
export const LLM_MODELS = [
	{ name: 'GPT-4o', value: 'gpt-4o', description: "OpenAI's GPT-4o" },
	{
		name: 'Service Voice',
		value: 'service-voice',
		description: "The service's own model for voice",
	},
] as const;

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

/**
 * The parameter that fills each field of POST /agent (the fields of a list's items as `list[].field`):
 * errors name a field by its parameter's label (`labelsOf`).
 */
export const AGENT_BODY_FIELDS = {
	name: 'name',
	area_code: 'areaCode',
	system_prompt: 'additionalFields.systemPrompt',
	initial_message: 'additionalFields.initialMessage',
	voice_id: 'additionalFields.voiceId',
	language: 'additionalFields.language',
	llm_model: 'additionalFields.llmModel',
	webhook: 'additionalFields.webhook',
	tools: 'additionalFields.tools',
	filler_words: 'additionalFields.fillerWords',
	filler_words_whitelist: 'additionalFields.fillerWordsWhitelist',
	voicemail_number: 'additionalFields.voicemailNumber',
	endpointing: 'additionalFields.endpointing',
	voice_optimization: 'additionalFields.voiceOptimization',
	smart_endpointing_threshold: 'additionalFields.smartEndpointingThreshold',
	actions: 'additionalFields.actions',
	'actions[].name': 'additionalFields.actions.action.name',
	'actions[].instructions': 'additionalFields.actions.action.instructions',
	'actions[].forwarding_number': 'additionalFields.actions.action.forwardingNumber',
	compliance_checks: 'additionalFields.complianceChecks',
	'compliance_checks[].name': 'additionalFields.complianceChecks.check.name',
	'compliance_checks[].model': 'additionalFields.complianceChecks.check.model',
	'compliance_checks[].check_instructions':
		'additionalFields.complianceChecks.check.checkInstructions',
	'compliance_checks[].rewrite_threshold':
		'additionalFields.complianceChecks.check.rewriteThreshold',
};

/**
 * Builds the POST /agent body from the parameters the user set, validating each one; `labels` name
 * its fields as the parameters do.
 */
export function buildAgentBody(
	validate: InputValidator,
	labels: FieldLabels,
	name: unknown,
	areaCode: unknown,
	fields: IDataObject,
): IDataObject & { name: string } {
	const named: Named = (path) => fieldName(labels, path);
	const body: IDataObject & { name: string } = {
		name: validate.nonEmptyString(name, named('name'), INPUT_LIMITS.nameLength),
	};
	if (typeof areaCode === 'number' || (typeof areaCode === 'string' && areaCode.trim() !== '')) {
		body.area_code = validate.areaCode(areaCode, named('area_code'));
	}
	const text: Array<[string, string, number]> = [
		['systemPrompt', 'system_prompt', INPUT_LIMITS.textLength],
		['initialMessage', 'initial_message', INPUT_LIMITS.textLength],
		['voiceId', 'voice_id', INPUT_LIMITS.nameLength],
		['language', 'language', INPUT_LIMITS.nameLength],
	];
	for (const [field, key, max] of text) {
		if (fields[field] !== undefined) body[key] = validate.text(fields[field], named(key), max);
	}
	if (fields.llmModel !== undefined) {
		const models = LLM_MODELS.map((model) => model.value);
		body.llm_model = validate.oneOf(fields.llmModel, named('llm_model'), models);
	}
	if (fields.webhook !== undefined)
		body.webhook = validate.urlOrEmpty(fields.webhook, named('webhook'));
	const tools = toolsOf(validate, named, fields);
	if (tools !== undefined) body.tools = tools;
	if (fields.fillerWords !== undefined) body.filler_words = fields.fillerWords === true;
	if (fields.fillerWordsWhitelist !== undefined) {
		body.filler_words_whitelist = validate.stringList(
			fields.fillerWordsWhitelist,
			named('filler_words_whitelist'),
		);
	}
	if (fields.voicemailNumber !== undefined) {
		// Empty clears the number, as the service allows.
		body.voicemail_number =
			String(fields.voicemailNumber).trim() === ''
				? ''
				: validate.e164(fields.voicemailNumber, named('voicemail_number'));
	}
	if (fields.endpointing !== undefined)
		body.endpointing = validate.integer(fields.endpointing, named('endpointing'), 0);
	if (fields.voiceOptimization !== undefined) {
		body.voice_optimization = validate.integer(
			fields.voiceOptimization,
			named('voice_optimization'),
			0,
			4,
		);
	}
	if (fields.smartEndpointingThreshold !== undefined) {
		body.smart_endpointing_threshold = validate.integer(
			fields.smartEndpointingThreshold,
			named('smart_endpointing_threshold'),
			0,
		);
	}
	if (fields.actions !== undefined) {
		const actions = ((fields.actions as IDataObject).action ?? []) as ActionInput[];
		body.actions = actions.map((action, n) => ({
			name: validate.nonEmptyString(
				action.name,
				named(`actions[${n}].name`),
				INPUT_LIMITS.nameLength,
			),
			instructions: validate.text(action.instructions ?? '', named(`actions[${n}].instructions`)),
			forwarding_number: validate.e164(
				action.forwardingNumber,
				named(`actions[${n}].forwarding_number`),
			),
		}));
	}
	if (fields.complianceChecks !== undefined) {
		const checks = ((fields.complianceChecks as IDataObject).check ?? []) as ComplianceCheckInput[];
		body.compliance_checks = checks.map((check, n) => ({
			name: validate.nonEmptyString(
				check.name,
				named(`compliance_checks[${n}].name`),
				INPUT_LIMITS.nameLength,
			),
			model: validate.nonEmptyString(
				check.model,
				named(`compliance_checks[${n}].model`),
				INPUT_LIMITS.nameLength,
			),
			check_instructions: validate.text(
				check.checkInstructions ?? '',
				named(`compliance_checks[${n}].check_instructions`),
			),
			rewrite_threshold: validate.integer(
				check.rewriteThreshold ?? 0,
				named(`compliance_checks[${n}].rewrite_threshold`),
				0,
			),
		}));
	}
	return validate.requestBody(body, labels);
}
