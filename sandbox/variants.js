'use strict';

const { oddReply, relabelLive, restampBody } = require('./answerForms');
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
 * @property {'iso' | 'utc_offset' | 'whole_seconds' | 'local_offset' | 'no_zone' | 'local_no_zone'} [timestamps]
 *   how API answers write times: `2026-11-22T10:15:30.123Z` (default), `...30.123+00:00`, `...30Z`, the same
 *   instant at `-05:00`, or without any zone: the UTC time (`...T10:15:30.123`) or the time at -05:00
 *   (`...T05:15:30.123`)
 * @property {boolean} [proxy_errors] injected 5xx faults are answered by a "proxy": an HTML page, not the
 *   service's JSON error body
 * @property {OddAnswer} [call_answer] the 200 answer of GET /call: the call (`normal`, default) or an odd one
 * @property {OddAnswer} [calls_answer] the 200 answer of GET /calls: the page (`normal`, default) or an odd one
 * @property {number} [odd_answers_every] only every n-th 200 answer of those routes is odd (default 1: each)
 * @property {number} [odd_answers_times] after this many odd answers, the routes answer normally again
 * @property {number} [list_lag_ms] a new call appears in GET /calls only this many ms after it was created
 *   (POST /call has answered long before; GET /call finds it at once): a list that lags (default 0)
 * @property {string} [live_status] the status API answers write for a call in progress, in place of
 *   `in_progress` (a service's own spelling, such as `forwarding` or `connecting`; default `in_progress`)
 */

/**
 * @typedef {'normal' | 'null' | 'array' | 'html' | 'truncated' | 'missing_fields' | 'mistyped_fields'} OddAnswer
 * A 200 answer the contract does not rule out: the JSON `null`; an array (of the call, or of the page's
 * calls); an HTML page (a proxy's or a portal's); the JSON cut in half; the object without its `id` and
 * `status` (GET /call) or `calls` (GET /calls); those fields with the wrong type (numbers, an object).
 */

const CREATE_ANSWERS = ['call', 'status_call_id', 'empty_201', 'empty_202', 'null'];
const ODD_ANSWERS = [
	'normal',
	'null',
	'array',
	'html',
	'truncated',
	'missing_fields',
	'mistyped_fields',
];
/** The routes whose 200 answers the odd-answer variants change, and the variant of each. */
const ODD_ROUTES = { 'GET /call': 'call_answer', 'GET /calls': 'calls_answer' };
const isCount = (/** @type {unknown} */ value) =>
	typeof value === 'number' && Number.isInteger(value) && value >= 1;
const TIMESTAMPS = [
	'iso',
	'utc_offset',
	'whole_seconds',
	'local_offset',
	'no_zone',
	'local_no_zone',
];
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
	call_answer: [(value) => ODD_ANSWERS.includes(String(value)), ODD_ANSWERS.join(', ')],
	calls_answer: [(value) => ODD_ANSWERS.includes(String(value)), ODD_ANSWERS.join(', ')],
	odd_answers_every: [isCount, 'a whole number from 1'],
	odd_answers_times: [isCount, 'a whole number from 1'],
	list_lag_ms: [
		(value) => typeof value === 'number' && Number.isInteger(value) && value >= 0,
		'a whole number of ms from 0',
	],
	live_status: [
		(value) => typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_ -]{0,39}$/.test(value),
		'a status (letters, digits, spaces, "_" and "-")',
	],
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

/** The variants in force: those of the start options until POST /_sandbox/variants replaces them. */
class ContractVariants {
	/** @param {VariantSettings} initial */
	constructor(initial) {
		this.initial = parseVariants(initial);
		/** @type {VariantSettings} */
		this.settings = { ...this.initial };
		this.endedCount = 0;
		this.oddCounts = { seen: 0, given: 0 };
	}

	/** @param {unknown} body */
	configure(body) {
		this.settings = parseVariants(body);
		this.endedCount = 0;
		this.oddCounts = { seen: 0, given: 0 };
	}

	describe() {
		return { ...this.settings };
	}

	/** Back to the start options' variants (POST /_sandbox/reset). */
	reset() {
		this.settings = { ...this.initial };
		this.endedCount = 0;
		this.oddCounts = { seen: 0, given: 0 };
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

	/** How long a new call stays out of GET /calls, in ms. */
	get listLagMs() {
		return this.settings.list_lag_ms ?? 0;
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
	 * The answer of a route as the odd-answer variants make it: a 200 of GET /call or GET /calls becomes
	 * the odd answer switched for it (every n-th, up to the times given); anything else is left as it is.
	 * @param {string} route e.g. "GET /call"
	 * @param {import('./api').Reply} reply
	 * @param {typeof oddReply} [makeOdd] writes the odd answer (the live profile writes its own form)
	 * @returns {import('./api').Reply}
	 */
	oddAnswer(route, reply, makeOdd = oddReply) {
		const variant = ODD_ROUTES[/** @type {keyof typeof ODD_ROUTES} */ (route)];
		const odd = variant && this.settings[/** @type {'call_answer' | 'calls_answer'} */ (variant)];
		if (!odd || odd === 'normal' || reply.status !== 200) return reply;
		const { odd_answers_every: every = 1, odd_answers_times: times } = this.settings;
		if (times !== undefined && this.oddCounts.given >= times) return reply;
		if (this.oddCounts.seen++ % every !== 0) return reply;
		this.oddCounts.given++;
		return makeOdd(route === 'GET /call' ? 'call' : 'page', odd, reply.body);
	}

	/**
	 * An API answer's body with times written the variant's way.
	 * @param {unknown} body
	 * @returns {unknown}
	 */
	restamp(body) {
		const form = this.settings.timestamps;
		const live = this.settings.live_status;
		const stamped = form === undefined || form === 'iso' ? body : restampBody(body, form);
		return live === undefined ? stamped : relabelLive(stamped, live);
	}
}

module.exports = { ContractVariants, END_STATUS, parseVariants };
