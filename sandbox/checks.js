'use strict';

// Checks shared by the validation of agents, calls and the control endpoints. A failed check throws a 400
// whose message starts with the field's path, so a client sees which field to fix.

const { ApiError } = require('./errors');

/** A check of one value; it throws a 400 whose message starts with the field's path. */
/** @typedef {(value: unknown, path: string) => void} Check */

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
 * Whether a body field was given: `null` counts as not given, because the service's own client library
 * sends `null` for every optional field it does not set (docs/service.md, "null means not given").
 * @param {unknown} value
 * @returns {boolean}
 */
function given(value) {
	return value !== undefined && value !== null;
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
	if (!given(value)) invalid(`${field} is required`);
	if (typeof value !== 'string') invalid(`${field} must be a string`);
	if (value.trim() === '') invalid(`${field} must not be empty`);
	return value;
}

module.exports = {
	invalid,
	isObject,
	isE164,
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
};
