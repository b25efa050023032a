'use strict';

const { invalid, isObject } = require('./checks');

// What the contract leaves open ("not shown"), made switchable: the real service may answer a create with
// another shape, end calls with statuses nobody listed, omit its Date header, write timestamps in another
// ISO form, or sit behind a proxy that answers errors with an HTML page. Tests switch these at start
// (`variants`) or through POST /_sandbox/variants, and the nodes must stay safe for each.

/**
 * @typedef {object} VariantSettings the body of POST /_sandbox/variants; every field is optional
 * @property {'call' | 'status_call_id' | 'empty_201' | 'empty_202' | 'null'} [create_answer] the answer of
 *   POST /call: the call (default); `{"status": "success", "call_id": ...}`; 201 or 202 with an empty body;
 *   200 with the JSON body `null`. The call is placed in every case.
 * @property {string[]} [end_statuses] statuses that calls ending by themselves take in turn, and that
 *   seeded ended calls are drawn from (default: `completed`); numbers ending in 0000 still end `failed`
 * @property {boolean} [date_header] false: API answers carry no `Date` header (default true)
 * @property {'iso' | 'utc_offset' | 'whole_seconds' | 'local_offset'} [timestamps] how API answers write
 *   times: `2026-11-22T10:15:30.123Z` (default), `...30.123+00:00`, `...30Z`, or the same instant at
 *   `-05:00`
 * @property {boolean} [proxy_errors] injected 5xx faults are answered by a "proxy": an HTML page, not the
 *   service's JSON error body
 */

const CREATE_ANSWERS = ['call', 'status_call_id', 'empty_201', 'empty_202', 'null'];
const TIMESTAMPS = ['iso', 'utc_offset', 'whole_seconds', 'local_offset'];
const TIME_FIELDS = new Set(['created_at', 'updated_at', 'ended_at', 'timestamp']);
/** Statuses a call ends with: anything but the live status, which would never end. */
const END_STATUS = /^(?!in_progress$)[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** @type {Record<keyof VariantSettings, [(value: unknown) => boolean, string]>} */
const VALID = {
	create_answer: [(value) => CREATE_ANSWERS.includes(String(value)), CREATE_ANSWERS.join(', ')],
	end_statuses: [
		(value) =>
			Array.isArray(value) &&
			value.length > 0 &&
			value.every((status) => typeof status === 'string' && END_STATUS.test(status)),
		'a non-empty array of statuses (letters, digits, "_" and "-"; not in_progress)',
	],
	date_header: [(value) => typeof value === 'boolean', 'true or false'],
	timestamps: [(value) => TIMESTAMPS.includes(String(value)), TIMESTAMPS.join(', ')],
	proxy_errors: [(value) => typeof value === 'boolean', 'true or false'],
};

/**
 * Checks variant settings; throws a 400 naming the field (a TypeError-like message at start).
 * @param {unknown} body
 * @returns {VariantSettings}
 */
function parseVariants(body) {
	if (!isObject(body)) invalid('The variants must be a JSON object ({} restores the defaults)');
	/** @type {Record<string, unknown>} */
	const settings = {};
	for (const [field, value] of Object.entries(body)) {
		if (!Object.hasOwn(VALID, field))
			invalid(`Unknown variant ${field}; known: ${Object.keys(VALID).join(', ')}`);
		if (value === null) continue;
		const [valid, expected] = VALID[/** @type {keyof VariantSettings} */ (field)];
		if (!valid(value)) invalid(`${field} must be ${expected}`);
		settings[field] = Array.isArray(value) ? [...value] : value;
	}
	return /** @type {VariantSettings} */ (settings);
}

/**
 * One ISO time written the variant's way.
 * @param {string} iso an ISO time as the sandbox stores it (UTC, milliseconds, Z)
 * @param {VariantSettings['timestamps']} form
 * @returns {string}
 */
function restamp(iso, form) {
	const ms = Date.parse(iso);
	if (!Number.isFinite(ms)) return iso;
	switch (form) {
		case 'utc_offset':
			return iso.replace(/Z$/, '+00:00');
		case 'whole_seconds':
			return iso.replace(/\.\d{3}Z$/, 'Z');
		case 'local_offset':
			return `${new Date(ms - 5 * 3_600_000).toISOString().replace(/Z$/, '')}-05:00`;
		default:
			return iso;
	}
}

/**
 * A copy of an answer body with every time field written the variant's way (objects and arrays, as deep as
 * the API's bodies go).
 * @param {unknown} value
 * @param {VariantSettings['timestamps']} form
 * @returns {unknown}
 */
function restampBody(value, form) {
	if (Array.isArray(value)) return value.map((entry) => restampBody(entry, form));
	if (!isObject(value)) return value;
	/** @type {Record<string, unknown>} */
	const copy = {};
	for (const [key, field] of Object.entries(value)) {
		copy[key] =
			TIME_FIELDS.has(key) && typeof field === 'string'
				? restamp(field, form)
				: restampBody(field, form);
	}
	return copy;
}

/** The variants in force: those of the start options until POST /_sandbox/variants replaces them. */
class ContractVariants {
	/** @param {VariantSettings} initial */
	constructor(initial) {
		this.initial = parseVariants(initial);
		/** @type {VariantSettings} */
		this.settings = { ...this.initial };
		this.endedCount = 0;
	}

	/** @param {unknown} body */
	configure(body) {
		this.settings = parseVariants(body);
		this.endedCount = 0;
	}

	describe() {
		return { ...this.settings };
	}

	/** Back to the start options' variants (POST /_sandbox/reset). */
	reset() {
		this.settings = { ...this.initial };
		this.endedCount = 0;
	}

	/**
	 * The status of the next call that ends without failing: the end statuses in turn.
	 * @returns {string}
	 */
	nextEndStatus() {
		const statuses = this.settings.end_statuses;
		if (!statuses) return 'completed';
		return statuses[this.endedCount++ % statuses.length];
	}

	get dateHeader() {
		return this.settings.date_header !== false;
	}

	get proxyErrors() {
		return this.settings.proxy_errors === true;
	}

	/**
	 * The answer of POST /call for the call just placed.
	 * @param {Record<string, unknown>} call the call in GET /call shape
	 * @returns {{ status: number, body: unknown, empty?: boolean }}
	 */
	createAnswer(call) {
		switch (this.settings.create_answer) {
			case 'status_call_id':
				return { status: 200, body: { status: 'success', call_id: call.id } };
			case 'empty_201':
				return { status: 201, body: null, empty: true };
			case 'empty_202':
				return { status: 202, body: null, empty: true };
			case 'null':
				return { status: 200, body: null };
			default:
				return { status: 200, body: call };
		}
	}

	/**
	 * An API answer's body with times written the variant's way.
	 * @param {unknown} body
	 * @returns {unknown}
	 */
	restamp(body) {
		const form = this.settings.timestamps;
		return form === undefined || form === 'iso' ? body : restampBody(body, form);
	}
}

/**
 * The page a proxy in front of the service answers a 5xx with.
 * @param {number} status
 * @returns {string}
 */
function proxyErrorPage(status) {
	const title = status === 503 ? 'Service Temporarily Unavailable' : `${status} Bad Gateway`;
	return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

module.exports = { ContractVariants, END_STATUS, parseVariants, proxyErrorPage, restamp };
