import type { IDataObject } from 'n8n-workflow';

import { INPUT_LIMITS, type InputValidator } from '../../../shared/validation';

/** The models the service accepts on upsert; listings may show older ones, passed through untouched. */
export const LLM_MODELS = [
	{ name: 'GPT-4o', value: 'gpt-4o' },
	{ name: 'Service Voice', value: 'service-voice' },
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

/** UI labels of the body's fields, for errors that name a field. */
const labels: Record<string, string> = {
	name: 'Name',
	area_code: 'Area Code',
	system_prompt: 'System Prompt',
	initial_message: 'Initial Message',
	voice_id: 'Voice ID',
	language: 'Language',
	llm_model: 'LLM Model',
	webhook: 'Webhook URL',
	tools: 'Tools (JSON)',
	filler_words: 'Filler Words',
	filler_words_whitelist: 'Filler Words Whitelist',
	voicemail_number: 'Voicemail Number',
	endpointing: 'Endpointing (Ms)',
	voice_optimization: 'Voice Optimization',
	smart_endpointing_threshold: 'Smart Endpointing Threshold',
	actions: 'Actions',
	compliance_checks: 'Compliance Checks',
};

/** Builds the POST /agent body from the parameters the user set, validating each one. */
export function buildAgentBody(
	validate: InputValidator,
	name: unknown,
	areaCode: unknown,
	fields: IDataObject,
): IDataObject & { name: string } {
	const body: IDataObject & { name: string } = {
		name: validate.nonEmptyString(name, 'Name', INPUT_LIMITS.nameLength),
	};
	if (typeof areaCode === 'number' || (typeof areaCode === 'string' && areaCode.trim() !== '')) {
		body.area_code = validate.areaCode(areaCode, 'Area Code');
	}
	const text: Array<[string, string, number]> = [
		['systemPrompt', 'system_prompt', INPUT_LIMITS.textLength],
		['initialMessage', 'initial_message', INPUT_LIMITS.textLength],
		['voiceId', 'voice_id', INPUT_LIMITS.nameLength],
		['language', 'language', INPUT_LIMITS.nameLength],
	];
	for (const [field, key, max] of text) {
		if (fields[field] !== undefined) body[key] = validate.text(fields[field], labels[key], max);
	}
	if (fields.llmModel !== undefined) {
		const models = LLM_MODELS.map((model) => model.value);
		body.llm_model = validate.oneOf(fields.llmModel, 'LLM Model', models);
	}
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
			name: validate.nonEmptyString(action.name, `Actions ${n + 1}: Name`, INPUT_LIMITS.nameLength),
			instructions: validate.text(action.instructions ?? '', `Actions ${n + 1}: Instructions`),
			forwarding_number: validate.e164(
				action.forwardingNumber,
				`Actions ${n + 1}: Forwarding Number`,
			),
		}));
	}
	if (fields.complianceChecks !== undefined) {
		const checks = ((fields.complianceChecks as IDataObject).check ?? []) as ComplianceCheckInput[];
		body.compliance_checks = checks.map((check, n) => ({
			name: validate.nonEmptyString(
				check.name,
				`Compliance Checks ${n + 1}: Name`,
				INPUT_LIMITS.nameLength,
			),
			model: validate.nonEmptyString(
				check.model,
				`Compliance Checks ${n + 1}: Model`,
				INPUT_LIMITS.nameLength,
			),
			check_instructions: validate.text(
				check.checkInstructions ?? '',
				`Compliance Checks ${n + 1}: Check Instructions`,
			),
			rewrite_threshold: validate.integer(
				check.rewriteThreshold ?? 0,
				`Compliance Checks ${n + 1}: Rewrite Threshold`,
				0,
			),
		}));
	}
	return validate.requestBody(body, labels);
}
