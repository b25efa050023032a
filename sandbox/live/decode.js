'use strict';

// Requests as the live service's handlers read them. A body is decoded by Go's json.Decoder into a struct:
// fields it does not know are ignored, `null` leaves a field at its zero value, and a value of the wrong
// type, a body that is not a JSON object or no body at all fail the whole decode with
// `400 Invalid request payload`. Nothing else is checked (no required fields, no formats, no ranges).
// Numbers in the query are read with Go's strconv.Atoi.

const { ApiError } = require('../errors');
const { isObject } = require('../checks');

/** @typedef {import('./types').LiveAgentSettings} LiveAgentSettings */
/** @typedef {(value: unknown) => boolean} Fits whether a JSON value decodes into a Go type */

/** @type {Fits} */
const string = (value) => typeof value === 'string';
/** @type {Fits} */
const bool = (value) => typeof value === 'boolean';
/** @type {Fits} */
const int = (value) => Number.isSafeInteger(value);
/** @type {Fits} */
const strings = (value) =>
	Array.isArray(value) && value.every((item) => item === null || string(item));

/**
 * A list of structs whose fields, where given, fit their types.
 * @param {Record<string, Fits>} fields
 * @returns {Fits}
 */
const structs = (fields) => (value) =>
	Array.isArray(value) &&
	value.every(
		(item) =>
			item === null ||
			(isObject(item) &&
				Object.entries(fields).every(([key, fits]) => item[key] == null || fits(item[key]))),
	);

/** The agent's struct, name and settings. @type {Record<keyof LiveAgentSettings | 'name', Fits>} */
const AGENT = {
	name: string,
	system_prompt: string,
	initial_message: string,
	llm_model: string,
	voice_id: string,
	webhook: string,
	tools: structs({ type: string }),
	filler_words: bool,
	filler_words_whitelist: strings,
	actions: structs({ name: string, instructions: string, forwarding_number: string }),
	voicemail_number: string,
	chunking: bool,
	endpointing: int,
	voice_optimization: int,
	smart_endpointing_threshold: int,
	language: string,
	compliance_checks: structs({
		name: string,
		model: string,
		check_instructions: string,
		rewrite_threshold: int,
	}),
};

const CALL = { from: string, to: string, context: string, user_speaks_first: bool };
const CONTEXT = { id: int, context: string };

/** @returns {never} */
function invalidPayload() {
	throw new ApiError(400, 'Invalid request payload');
}

/**
 * The given (not null) fields of a body that decodes into the struct.
 * @param {unknown} body
 * @param {Record<string, Fits>} struct
 * @returns {Record<string, unknown>}
 */
function decode(body, struct) {
	if (!isObject(body)) invalidPayload();
	/** @type {Record<string, unknown>} */
	const fields = {};
	for (const [field, fits] of Object.entries(struct)) {
		const value = body[field];
		if (value === undefined || value === null) continue;
		if (!fits(value)) invalidPayload();
		fields[field] = value;
	}
	return fields;
}

/**
 * POST /agent: the name (an agent may be named "") and every setting sent.
 * @param {unknown} body
 * @returns {{ name: string, settings: Partial<LiveAgentSettings> }}
 */
function decodeAgent(body) {
	const { name = '', ...settings } = decode(body, AGENT);
	return { name: String(name), settings: /** @type {Partial<LiveAgentSettings>} */ (settings) };
}

/**
 * POST /call.
 * @param {unknown} body
 * @returns {{ from: string, to: string, context: string, userSpeaksFirst: boolean }}
 */
function decodeCall(body) {
	const fields = decode(body, CALL);
	return {
		from: String(fields.from ?? ''),
		to: String(fields.to ?? ''),
		context: String(fields.context ?? ''),
		userSpeaksFirst: fields.user_speaks_first === true,
	};
}

/**
 * POST /call/context: `id` is a number (`"5001"` does not decode).
 * @param {unknown} body
 * @returns {{ id: number, context: string }}
 */
function decodeContext(body) {
	const fields = decode(body, CONTEXT);
	return { id: Number(fields.id ?? 0), context: String(fields.context ?? '') };
}

/**
 * Go's strconv.Atoi: an optional sign and decimal digits, within 64 bits.
 * @param {string} text
 * @returns {number | undefined}
 */
function atoi(text) {
	if (!/^[+-]?\d+$/.test(text)) return undefined;
	const value = Number(text);
	return Math.abs(value) <= 9_223_372_036_854_775_807 ? value : undefined;
}

module.exports = { decodeAgent, decodeCall, decodeContext, atoi };
