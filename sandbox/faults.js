'use strict';

const { invalid, isObject } = require('./checks');

/** @typedef {import('./random').Random} Random */

/**
 * @typedef {object} FaultSettings the body of POST /_sandbox/faults; every field is optional
 * @property {number} [error_rate] 0..1, share of requests answered with `status`
 * @property {number} [reset_rate] 0..1, share of requests whose socket is destroyed without an answer
 * @property {number} [latency_ms] extra delay before the request is handled
 * @property {number} [rate_limit_per_s] turns on rate limiting: a token bucket per API key and endpoint
 * @property {number} [status] status of injected errors, 400..599 (default 500)
 * @property {string} [match] only requests to this endpoint, "METHOD /path" relative to /v1 (e.g. "POST /call")
 * @property {number} [skip] the next N matching requests pass unharmed before the fault applies (default 0)
 * @property {number} [times] only the next N matching requests get latency/error/reset; then the fault is spent
 * @property {'before' | 'after'} [when] "before": fail without acting; "after": act, then fail (ambiguous failure)
 * @property {number} [retry_after_s] the Retry-After of an injected 429, in seconds (default 1)
 */

/** @typedef {{ latencyMs: number, action: 'error' | 'reset' | null, status: number, when: 'before' | 'after', retryAfterS: number }} Fault */

/** @type {Record<keyof FaultSettings, (value: unknown, knownRoutes: Set<string>) => boolean>} */
const VALID = {
	error_rate: (value) => typeof value === 'number' && value >= 0 && value <= 1,
	reset_rate: (value) => typeof value === 'number' && value >= 0 && value <= 1,
	latency_ms: (value) => Number.isInteger(value) && Number(value) >= 0 && Number(value) <= 60_000,
	rate_limit_per_s: (value) => typeof value === 'number' && value >= 0 && value <= 100_000,
	status: (value) => Number.isInteger(value) && Number(value) >= 400 && Number(value) <= 599,
	match: (value, knownRoutes) => typeof value === 'string' && knownRoutes.has(value),
	skip: (value) => Number.isInteger(value) && Number(value) >= 0,
	times: (value) => Number.isInteger(value) && Number(value) >= 1,
	when: (value) => value === 'before' || value === 'after',
	retry_after_s: (value) => Number.isInteger(value) && Number(value) >= 0 && Number(value) <= 3_600,
};

const EXPECTED = {
	error_rate: 'a number from 0 to 1',
	reset_rate: 'a number from 0 to 1',
	latency_ms: 'an integer from 0 to 60000',
	rate_limit_per_s: 'a number from 0 (off) to 100000',
	status: 'an integer from 400 to 599',
	match: 'an API endpoint as "METHOD /path" relative to /v1',
	skip: 'an integer of at least 0',
	times: 'an integer of at least 1',
	when: '"before" or "after"',
	retry_after_s: 'an integer from 0 to 3600',
};

/**
 * Holds the fault settings of POST /_sandbox/faults and decides, request by request, which fault applies.
 */
class FaultInjector {
	/**
	 * @param {Random} random dice for error_rate and reset_rate
	 * @param {Set<string>} knownRoutes valid values of `match`
	 */
	constructor(random, knownRoutes) {
		this.random = random;
		this.knownRoutes = knownRoutes;
		/** @type {FaultSettings} */
		this.settings = {};
		/** @type {number | undefined} requests left to fault when `times` is set */
		this.remaining = undefined;
		/** matching requests still to let through before the fault applies */
		this.toSkip = 0;
	}

	/**
	 * Replaces the settings (`{}` clears them). null counts as absent.
	 * @param {unknown} body
	 */
	configure(body) {
		if (!isObject(body))
			invalid('The request body must be a JSON object of fault settings ({} clears them)');
		/** @type {Record<string, unknown>} */
		const settings = {};
		for (const [field, value] of Object.entries(body)) {
			if (!Object.hasOwn(VALID, field))
				invalid(`Unknown fault setting ${field}; known: ${Object.keys(VALID).join(', ')}`);
			if (value === null) continue;
			const key = /** @type {keyof FaultSettings} */ (field);
			if (!VALID[key](value, this.knownRoutes)) {
				const routes = key === 'match' ? `, one of: ${[...this.knownRoutes].join(', ')}` : '';
				invalid(`${field} must be ${EXPECTED[key]}${routes}`);
			}
			settings[field] = value;
		}
		this.settings = /** @type {FaultSettings} */ (settings);
		this.remaining = this.settings.times;
		this.toSkip = this.settings.skip ?? 0;
	}

	/** @returns {FaultSettings & { times_remaining?: number }} the settings in force */
	describe() {
		return this.remaining === undefined
			? { ...this.settings }
			: { ...this.settings, times_remaining: this.remaining };
	}

	/**
	 * @param {string} route "METHOD /path" relative to /v1
	 * @returns {boolean}
	 */
	matches(route) {
		return this.settings.match === undefined || this.settings.match === route;
	}

	/**
	 * The rate of the token bucket for this endpoint, or 0 when rate limiting is off for it.
	 * @param {string} route
	 * @returns {number}
	 */
	rateLimitFor(route) {
		return this.matches(route) ? (this.settings.rate_limit_per_s ?? 0) : 0;
	}

	/**
	 * Decides the fault of one request and spends one of `times`.
	 * @param {string} route
	 * @returns {Fault | null}
	 */
	draw(route) {
		const {
			error_rate: errorRate = 0,
			reset_rate: resetRate = 0,
			latency_ms: latencyMs = 0,
		} = this.settings;
		if (!this.matches(route) || (errorRate === 0 && resetRate === 0 && latencyMs === 0))
			return null;
		if (this.toSkip > 0) {
			this.toSkip--;
			return null;
		}
		if (this.remaining !== undefined) {
			if (this.remaining === 0) return null;
			this.remaining--;
		}
		const roll = errorRate > 0 || resetRate > 0 ? this.random.next() : 1;
		return {
			latencyMs,
			action: roll < resetRate ? 'reset' : roll < resetRate + errorRate ? 'error' : null,
			status: this.settings.status ?? 500,
			when: this.settings.when ?? 'before',
			retryAfterS: this.settings.retry_after_s ?? 1,
		};
	}

	clear() {
		this.settings = {};
		this.remaining = undefined;
		this.toSkip = 0;
	}
}

module.exports = { FaultInjector };
