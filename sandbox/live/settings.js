'use strict';

// The switches of the live profile: how long a placed call rings, how long each kind of event waits before
// it is sent (the service sends every event on its own, in no order: a delay makes an order reproducible),
// and whether a retry after a transport error carries an empty body. Set at start (`ringMs`) and through
// POST /_sandbox/live; POST /_sandbox/reset comes back to the start's.

const { invalid, isObject } = require('../checks');

/** @typedef {import('./types').LiveEventName} LiveEventName */

/**
 * @typedef {object} LiveSettings the body of POST /_sandbox/live; every field is optional
 * @property {number} [ring_ms] how long a placed call rings before it connects, in ms
 * @property {Partial<Record<LiveEventName, number>>} [event_delay_ms] how long each kind of simulated event
 *   waits before its first attempt, in ms (e.g. `{"call_started": 500}` lets a short call's call_ended
 *   arrive first)
 * @property {boolean} [empty_retry_body] a retry after a transport error sends an empty body
 */

const EVENTS = ['call_started', 'call_ended', 'tool_call', 'action'];
const MAX_MS = 3_600_000;
const isMs = (/** @type {unknown} */ value) =>
	Number.isInteger(value) && Number(value) >= 0 && Number(value) <= MAX_MS;

/**
 * Checks live settings; throws a 400 naming the field.
 * @param {unknown} body
 * @returns {LiveSettings}
 */
function parseLiveSettings(body) {
	if (!isObject(body)) invalid('The live settings must be a JSON object ({} restores the start)');
	/** @type {LiveSettings} */
	const settings = {};
	for (const [field, value] of Object.entries(body)) {
		if (value === null) continue;
		if (field === 'ring_ms') {
			if (!isMs(value)) invalid(`ring_ms must be an integer from 0 to ${MAX_MS}`);
			settings.ring_ms = Number(value);
		} else if (field === 'event_delay_ms') {
			if (!isObject(value))
				invalid(`event_delay_ms must be an object such as {"call_started": 500}`);
			for (const [event, ms] of Object.entries(value)) {
				if (!EVENTS.includes(event))
					invalid(`event_delay_ms.${event} is no event; events: ${EVENTS.join(', ')}`);
				if (!isMs(ms)) invalid(`event_delay_ms.${event} must be an integer from 0 to ${MAX_MS}`);
			}
			settings.event_delay_ms = { ...value };
		} else if (field === 'empty_retry_body') {
			if (typeof value !== 'boolean') invalid('empty_retry_body must be true or false');
			settings.empty_retry_body = value;
		} else {
			invalid(`Unknown live setting ${field}; known: ring_ms, event_delay_ms, empty_retry_body`);
		}
	}
	return settings;
}

/** The live settings in force: the start's until POST /_sandbox/live replaces them. */
class LiveSwitches {
	/** @param {{ ringMs: number }} start */
	constructor({ ringMs }) {
		/** @type {LiveSettings} */
		this.initial = { ring_ms: ringMs };
		this.settings = { ...this.initial };
	}

	/** @param {unknown} body fields not given take the start's values */
	configure(body) {
		this.settings = { ...this.initial, ...parseLiveSettings(body) };
	}

	describe() {
		return { ...this.settings };
	}

	reset() {
		this.settings = { ...this.initial };
	}

	get ringMs() {
		return this.settings.ring_ms ?? 0;
	}

	get emptyRetryBody() {
		return this.settings.empty_retry_body === true;
	}

	/**
	 * @param {LiveEventName} event
	 * @returns {number}
	 */
	eventDelayMs(event) {
		return this.settings.event_delay_ms?.[event] ?? 0;
	}
}

module.exports = { LiveSwitches, parseLiveSettings, LIVE_EVENTS: EVENTS };
