/**
 * How errors name the API's fields: the node's label, read from the parameter that fills the field,
 * with the API field in brackets only where it helps.
 */
import { AGENT_BODY_FIELDS } from '../../../nodes/VoiceAgent/actions/agent/agentBody';
import { AGENT_FIELDS } from '../../../nodes/VoiceAgent/actions/agent/upsert.operation';
import { CALL_FIELDS } from '../../../nodes/VoiceAgent/actions/call/create.operation';
import { fieldName, labelsOf, withFieldNames } from '../../../nodes/shared/fields';

describe('labelsOf: the labels come from the parameters that fill the fields', () => {
	test('every field of POST /agent has its parameter and its label', () => {
		expect(Object.keys(AGENT_FIELDS)).toEqual(Object.keys(AGENT_BODY_FIELDS));
		expect(AGENT_FIELDS).toEqual({
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
			endpointing: 'Endpointing (Milliseconds)',
			voice_optimization: 'Voice Optimization',
			smart_endpointing_threshold: 'Smart Endpointing Threshold',
			actions: 'Actions',
			'actions[].name': 'Name',
			'actions[].instructions': 'Instructions',
			'actions[].forwarding_number': 'Forwarding Number',
			compliance_checks: 'Compliance Checks',
			'compliance_checks[].name': 'Name',
			'compliance_checks[].model': 'Model',
			'compliance_checks[].check_instructions': 'Check Instructions',
			'compliance_checks[].rewrite_threshold': 'Rewrite Threshold',
		});
	});

	test('every field of POST /call has its parameter and its label', () => {
		expect(CALL_FIELDS).toEqual({
			from: 'From (Agent)',
			to: 'To',
			context: 'Context',
			user_speaks_first: 'User Speaks First',
		});
	});

	test('a path through a collection and its group; a path to no parameter gives no label', () => {
		const labels = labelsOf(
			[
				{ displayName: 'Phone', name: 'phone', type: 'string', default: '' },
				{
					displayName: 'Steps',
					name: 'steps',
					type: 'fixedCollection',
					default: {},
					options: [
						{
							displayName: 'Step',
							name: 'step',
							values: [{ displayName: 'Wait (Seconds)', name: 'wait', type: 'number', default: 0 }],
						},
					],
				},
			],
			{ phone_number: 'phone', 'steps[].wait_s': 'steps.step.wait', gone: 'steps.step.gone' },
		);
		expect(labels).toEqual({ phone_number: 'Phone', 'steps[].wait_s': 'Wait (Seconds)' });
	});
});

describe('fieldName', () => {
	test.each([
		['voice_optimization', 'Voice Optimization'],
		['webhook', 'Webhook URL'],
		['endpointing', 'Endpointing (Milliseconds)'],
		['tools', 'Tools (JSON)'],
		['actions[1].forwarding_number', 'Actions 2: Forwarding Number'],
		['compliance_checks[0].rewrite_threshold', 'Compliance Checks 1: Rewrite Threshold'],
		['actions[2]', 'Actions 3'],
	])('%s is named "%s", as the node names it', (path, name) => {
		expect(fieldName(AGENT_FIELDS, path)).toBe(name);
	});

	test('the API field follows in brackets where the label does not say it', () => {
		expect(fieldName({ agent_id: 'Agent' }, 'agent_id')).toBe('Agent (agent_id)');
	});

	test('a field the node does not know keeps its API name', () => {
		expect(fieldName(AGENT_FIELDS, 'chunking')).toBe('chunking');
		expect(fieldName(AGENT_FIELDS, 'actions[0].unknown')).toBe('actions[0].unknown');
	});
});

describe("withFieldNames: the service's 400 messages", () => {
	test.each([
		[
			AGENT_FIELDS,
			'voice_optimization must be an integer from 0 to 4',
			'Voice Optimization must be an integer from 0 to 4',
		],
		[
			AGENT_FIELDS,
			'actions[1].forwarding_number must be a phone number in E.164 format (+ then 7 to 15 digits, e.g. +14155550123)',
			'Actions 2: Forwarding Number must be a phone number in E.164 format (+ then 7 to 15 digits, e.g. +14155550123)',
		],
		[
			AGENT_FIELDS,
			'webhook must be an http or https URL, or an empty string to remove it',
			'Webhook URL must be an http or https URL, or an empty string to remove it',
		],
		[
			AGENT_FIELDS,
			'name and area_code are required to create a new agent; area_code is missing',
			'Name and Area Code are required to create a new agent; Area Code is missing',
		],
		[
			CALL_FIELDS,
			'from must be the phone_number of one of your agents; +14155550999 is not',
			'From (Agent) must be the phone_number of one of your agents; +14155550999 is not',
		],
		[
			AGENT_FIELDS,
			'The request body must be a JSON object',
			'The request body must be a JSON object',
		],
		[CALL_FIELDS, 'nothing to name here', 'nothing to name here'],
	])('%#: "%s"', (labels, message, named) => {
		expect(withFieldNames(message, labels)).toBe(named);
	});
});
