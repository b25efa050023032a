'use strict';

// The agent's settings: how POST /agent checks each one and what a new agent gets when it is not given.

const {
	invalid,
	given,
	string,
	boolean,
	integer,
	phoneNumber,
	oneOf,
	arrayOf,
	objectWith,
	requireObjectBody,
	requireNonEmptyString,
} = require('./checks');

/** @typedef {import('./types').AgentSettings} AgentSettings */
/** @typedef {import('./checks').Check} Check */

const LLM_MODELS = ['gpt-4o', 'service-voice'];

/** @type {Check} */
const webhookUrl = (value, path) => {
	string(value, path);
	if (value === '') return;
	const url = URL.canParse(String(value)) ? new URL(String(value)) : null;
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		invalid(`${path} must be an http or https URL, or an empty string to remove it`);
	}
};

/** @type {Record<keyof AgentSettings, Check>} */
const AGENT_SETTING_CHECKS = {
	system_prompt: string,
	initial_message: string,
	llm_model: oneOf(LLM_MODELS),
	voice_id: string,
	webhook: webhookUrl,
	tools: arrayOf(objectWith({})),
	filler_words: boolean,
	filler_words_whitelist: arrayOf(string),
	actions: arrayOf(
		objectWith({ name: string, instructions: string, forwarding_number: phoneNumber }),
	),
	// An empty string clears the number (it is also the default).
	voicemail_number: (value, path) => (value === '' ? undefined : phoneNumber(value, path)),
	chunking: boolean,
	endpointing: integer(0),
	voice_optimization: integer(0, 4),
	smart_endpointing_threshold: integer(0),
	language: string,
	compliance_checks: arrayOf(
		objectWith({
			name: string,
			model: string,
			check_instructions: string,
			rewrite_threshold: integer(0),
		}),
	),
};

/**
 * Defaults of a new agent (docs/service.md, "Defaults of a new agent"): empty strings, gpt-4o, false, [],
 * 0, language "en".
 * @returns {AgentSettings}
 */
function defaultAgentSettings() {
	return {
		system_prompt: '',
		initial_message: '',
		llm_model: 'gpt-4o',
		voice_id: '',
		webhook: '',
		tools: [],
		filler_words: false,
		filler_words_whitelist: [],
		actions: [],
		voicemail_number: '',
		chunking: false,
		endpointing: 0,
		voice_optimization: 0,
		smart_endpointing_threshold: 0,
		language: 'en',
		compliance_checks: [],
	};
}

/**
 * The body of POST /agent. Fields it does not know are ignored; the ones it knows must be valid. A field
 * that is `null` is not given: an update keeps the stored value, a new agent takes the default.
 * @param {unknown} body
 * @returns {{ name: string, areaCode: string | undefined, settings: Partial<AgentSettings> }}
 */
function parseAgentUpsert(body) {
	const fields = requireObjectBody(body);
	if (!given(fields.name))
		invalid('name and area_code are required to create a new agent; name is missing');
	const name = requireNonEmptyString(fields, 'name');
	const areaCode = given(fields.area_code) ? fields.area_code : undefined;
	if (areaCode !== undefined && (typeof areaCode !== 'string' || !/^\d{3}$/.test(areaCode))) {
		invalid('area_code must be a string of 3 digits, e.g. "415"');
	}
	/** @type {Record<string, unknown>} */
	const settings = {};
	for (const [field, check] of Object.entries(AGENT_SETTING_CHECKS)) {
		if (!given(fields[field])) continue;
		check(fields[field], field);
		settings[field] = fields[field];
	}
	return { name, areaCode, settings: /** @type {Partial<AgentSettings>} */ (settings) };
}

module.exports = { defaultAgentSettings, parseAgentUpsert };
