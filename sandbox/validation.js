'use strict';

const { ApiError } = require('./errors');

/** @typedef {import('./types').AgentSettings} AgentSettings */
/** A check of one value; it throws a 400 whose message starts with the field's path. */
/** @typedef {(value: unknown, path: string) => void} Check */

const LLM_MODELS = ['gpt-4o', 'service-voice'];
const MIN_LIMIT = 1;
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;

/**
 * @param {string} message
 * @returns {never}
 */
function invalid(message) {
	throw new ApiError(400, message);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * E.164 as the project defines it: `+`, then 7 to 15 digits, the first not 0.
 * @param {unknown} value
 * @returns {boolean}
 */
function isE164(value) {
	return typeof value === 'string' && /^\+[1-9]\d{6,14}$/.test(value);
}

/** @type {Check} */
const string = (value, path) => {
	if (typeof value !== 'string') invalid(`${path} must be a string`);
};

/** @type {Check} */
const boolean = (value, path) => {
	if (typeof value !== 'boolean') invalid(`${path} must be a boolean`);
};

/**
 * @param {number} min
 * @param {number} [max]
 * @returns {Check}
 */
const integer = (min, max) => (value, path) => {
	if (
		typeof value !== 'number' ||
		!Number.isInteger(value) ||
		value < min ||
		(max !== undefined && value > max)
	) {
		invalid(
			max === undefined
				? `${path} must be an integer of at least ${min}`
				: `${path} must be an integer from ${min} to ${max}`,
		);
	}
};

/** @type {Check} */
const phoneNumber = (value, path) => {
	if (!isE164(value))
		invalid(
			`${path} must be a phone number in E.164 format (+ then 7 to 15 digits, e.g. +14155550123)`,
		);
};

/**
 * @param {readonly string[]} allowed
 * @returns {Check}
 */
const oneOf = (allowed) => (value, path) => {
	if (typeof value !== 'string' || !allowed.includes(value))
		invalid(`${path} must be one of: ${allowed.join(', ')}`);
};

/** @type {Check} */
const webhookUrl = (value, path) => {
	string(value, path);
	if (value === '') return;
	const url = URL.canParse(String(value)) ? new URL(String(value)) : null;
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		invalid(`${path} must be an http or https URL, or an empty string to remove it`);
	}
};

/**
 * @param {Check} check
 * @returns {Check}
 */
const arrayOf = (check) => (value, path) => {
	if (!Array.isArray(value)) invalid(`${path} must be an array`);
	value.forEach((item, i) => check(item, `${path}[${i}]`));
};

/**
 * An object whose listed fields, when present, pass their checks; other fields are kept as given.
 * @param {Record<string, Check>} fields
 * @returns {Check}
 */
const objectWith = (fields) => (value, path) => {
	if (!isObject(value)) invalid(`${path} must be an object`);
	for (const [field, check] of Object.entries(fields)) {
		if (value[field] !== undefined) check(value[field], `${path}.${field}`);
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
 * Defaults of a new agent (decisions.md): empty strings, gpt-4o, false, [], 0, language "en".
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
 * @param {unknown} body
 * @returns {Record<string, unknown>}
 */
function requireObjectBody(body) {
	if (!isObject(body)) invalid('The request body must be a JSON object');
	return body;
}

/**
 * @param {Record<string, unknown>} body
 * @param {string} field
 * @returns {string}
 */
function requireNonEmptyString(body, field) {
	const value = body[field];
	if (value === undefined) invalid(`${field} is required`);
	if (typeof value !== 'string') invalid(`${field} must be a string`);
	if (value.trim() === '') invalid(`${field} must not be empty`);
	return value;
}

/**
 * The body of POST /agent. Fields it does not know are ignored; the ones it knows must be valid.
 * @param {unknown} body
 * @returns {{ name: string, areaCode: string | undefined, settings: Partial<AgentSettings> }}
 */
function parseAgentUpsert(body) {
	const fields = requireObjectBody(body);
	if (fields.name === undefined)
		invalid('name and area_code are required to create a new agent; name is missing');
	const name = requireNonEmptyString(fields, 'name');
	const areaCode = fields.area_code;
	if (areaCode !== undefined && (typeof areaCode !== 'string' || !/^\d{3}$/.test(areaCode))) {
		invalid('area_code must be a string of 3 digits, e.g. "415"');
	}
	/** @type {Record<string, unknown>} */
	const settings = {};
	for (const [field, check] of Object.entries(AGENT_SETTING_CHECKS)) {
		if (fields[field] === undefined) continue;
		check(fields[field], field);
		settings[field] = fields[field];
	}
	return { name, areaCode, settings: /** @type {Partial<AgentSettings>} */ (settings) };
}

/**
 * The body of POST /call.
 * @param {unknown} body
 * @returns {{ from: string, to: string, context: string, userSpeaksFirst: boolean }}
 */
function parseCallCreate(body) {
	const fields = requireObjectBody(body);
	for (const field of ['from', 'to']) {
		if (fields[field] === undefined) invalid(`${field} is required`);
		phoneNumber(fields[field], field);
	}
	if (fields.context !== undefined) string(fields.context, 'context');
	if (fields.user_speaks_first !== undefined)
		boolean(fields.user_speaks_first, 'user_speaks_first');
	return {
		from: String(fields.from),
		to: String(fields.to),
		context: typeof fields.context === 'string' ? fields.context : '',
		userSpeaksFirst: fields.user_speaks_first === true,
	};
}

/**
 * The body of POST /call/context.
 * @param {unknown} body
 * @returns {{ id: string, context: string }}
 */
function parseContextUpdate(body) {
	const fields = requireObjectBody(body);
	const id = requireNonEmptyString(fields, 'id');
	if (fields.context === undefined) invalid('context is required');
	string(fields.context, 'context');
	return { id, context: String(fields.context) };
}

/**
 * The `id` query parameter of GET /call, GET /agent, DELETE /agent.
 * @param {URLSearchParams} query
 * @returns {string}
 */
function requireQueryId(query) {
	const id = query.get('id');
	if (id === null || id === '') invalid('id is required: pass it as the query parameter ?id=');
	return id;
}

/**
 * `limit` of the lists: an integer from 1; above 100 serves 100 (decisions.md).
 * @param {URLSearchParams} query
 * @returns {number}
 */
function parseLimit(query) {
	const raw = query.get('limit');
	if (raw === null) return DEFAULT_LIMIT;
	if (!/^-?\d+$/.test(raw) || Number(raw) < MIN_LIMIT)
		invalid(`limit must be an integer from ${MIN_LIMIT} to ${MAX_LIMIT}`);
	return Math.min(Number(raw), MAX_LIMIT);
}

module.exports = {
	isObject,
	invalid,
	defaultAgentSettings,
	parseAgentUpsert,
	parseCallCreate,
	parseContextUpdate,
	requireQueryId,
	parseLimit,
};
