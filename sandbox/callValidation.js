'use strict';

// The bodies of POST /call and POST /call/context.

const {
	invalid,
	given,
	string,
	boolean,
	phoneNumber,
	requireObjectBody,
	requireNonEmptyString,
} = require('./checks');

/**
 * The body of POST /call. `null` counts as not given: `context` is then empty and `user_speaks_first` false.
 * @param {unknown} body
 * @returns {{ from: string, to: string, context: string, userSpeaksFirst: boolean }}
 */
function parseCallCreate(body) {
	const fields = requireObjectBody(body);
	for (const field of ['from', 'to']) {
		if (!given(fields[field])) invalid(`${field} is required`);
		phoneNumber(fields[field], field);
	}
	if (given(fields.context)) string(fields.context, 'context');
	if (given(fields.user_speaks_first)) boolean(fields.user_speaks_first, 'user_speaks_first');
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
	if (!given(fields.context)) invalid('context is required');
	string(fields.context, 'context');
	return { id, context: String(fields.context) };
}

module.exports = { parseCallCreate, parseContextUpdate };
