'use strict';

/**
 * @typedef {object} RecordedRequest one API request, as GET /_sandbox/requests lists it
 * @property {string} method
 * @property {string} path full URL path, e.g. "/v1/calls"
 * @property {Record<string, string | string[]>} query
 * @property {number | null} status null when the socket was reset instead of answered
 * @property {unknown} body the parsed JSON body, or null (no body, or not JSON)
 * @property {string} at ISO time the request arrived
 * @property {'error' | 'reset' | null} fault the fault the sandbox injected into this request, if any
 * @property {string | number} [created_call_id] POST /call: the ID of the call it created, whatever the answer
 *   said (a number on a live key)
 */

/**
 * @typedef {object} RecordedDelivery one webhook delivery attempt, as GET /_sandbox/deliveries lists it
 * @property {string} url
 * @property {string} event_type
 * @property {string | number} call_id (a number on a live key)
 * @property {number} attempt 1 for the first try, up to 4 (live: as many as the backoff allows)
 * @property {number | null} status the receiver's status code, null on a network error or timeout
 * @property {string | null} error the network error, null when the receiver answered
 * @property {string | null} response_body the receiver's answer as text, at most 2 KB
 * @property {string} at ISO time the attempt started
 * @property {boolean} [empty_body] live key only: whether the attempt carried an empty body (a retry with
 *   `empty_retry_body`)
 * @property {number} [ms] live key only: how long the attempt waited for its answer (or its error), in ms
 */

/** Entries kept per log: enough for any test, bounded for a sandbox left running for days. */
const MAX_ENTRIES = 50_000;

/**
 * An append-only list that drops its oldest entries past MAX_ENTRIES.
 * @template T
 */
class BoundedLog {
	constructor() {
		/** @type {T[]} */
		this.entries = [];
	}

	/** @param {T} entry */
	push(entry) {
		this.entries.push(entry);
		if (this.entries.length > MAX_ENTRIES)
			this.entries.splice(0, this.entries.length - MAX_ENTRIES);
	}

	clear() {
		this.entries = [];
	}
}

module.exports = { BoundedLog };
