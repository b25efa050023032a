'use strict';

// The bodies of POST /call and POST /call/context.

const {
	invalid,
	string,
	boolean,
	phoneNumber,
	requireObjectBody,
	requireNonEmptyString,
} = require('./checks');

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

module.exports = { parseCallCreate, parseContextUpdate };
