'use strict';

const http = require('node:http');
const https = require('node:https');
const { isoTime } = require('../records');

/** @typedef {import('../logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('../logs').BoundedLog<RecordedDelivery>} DeliveryLog */
/** @typedef {import('../timers').TimerSet} TimerSet */
/** @typedef {import('../webhooks').AttemptResult} AttemptResult */
/** @typedef {import('./types').LiveEvent} LiveEvent */
/** @typedef {import('./settings').LiveSwitches} LiveSwitches */

/** Each wait of the backoff is this many times the one before (cenkalti/backoff's default, probably). */
const BACKOFF_MULTIPLIER = 1.5;
/** Receiver answers are logged up to this many characters. */
const MAX_LOGGED_BODY = 2048;

/**
 * The live service's webhook sender. Every event goes out on its own (a call's events in no set order).
 * An attempt has no timeout: it waits as long as the receiver takes. Any answer ends the delivery: a 2xx
 * delivers the event, any other status drops it, never retried. Only a transport error (connection refused,
 * reset, closed before an answer) is retried, with exponential backoff: the first retry `retryDelayMs`
 * after the failure, each wait BACKOFF_MULTIPLIER times the one before, and no retry once `retryWindowMs`
 * would have passed since the first attempt (one minute at the service). The service's backoff library
 * adds jitter; the sandbox waits exactly, so tests can check the waits. With `empty_retry_body` a retry
 * carries an empty body. Every attempt is recorded in the delivery log.
 */
class LiveSender {
	/**
	 * @param {{ retryDelayMs: number, retryWindowMs: number, log: DeliveryLog, timers: TimerSet, switches: LiveSwitches }} options
	 */
	constructor({ retryDelayMs, retryWindowMs, log, timers, switches }) {
		this.retryDelayMs = retryDelayMs;
		this.retryWindowMs = retryWindowMs;
		this.log = log;
		this.timers = timers;
		this.switches = switches;
		/** @type {Set<AbortController>} */
		this.inFlight = new Set();
		// Bumped by cancelAll: attempts and retries of an older generation are neither logged nor continued.
		this.generation = 0;
	}

	/**
	 * Sends an event; resolves with the first attempt's result while retries go on in the background.
	 * @param {string} url
	 * @param {LiveEvent} event
	 * @param {number} [delayMs] wait before the first attempt
	 * @returns {Promise<AttemptResult | null>} null when cancelled before the first attempt
	 */
	async send(url, event, delayMs = 0) {
		const generation = this.generation;
		const body = JSON.stringify(event); // the call as it is now, whenever the attempts go out
		if (delayMs > 0) await this.timers.sleep(delayMs);
		if (generation !== this.generation) return null;
		const firstAt = Date.now();
		/**
		 * @param {number} attempt
		 * @param {number} waitMs the wait before the next retry
		 * @returns {Promise<AttemptResult>}
		 */
		const run = async (attempt, waitMs) => {
			const empty = attempt > 1 && this.switches.emptyRetryBody;
			const result = await this.attempt(url, event, empty ? '' : body, attempt, generation);
			const transportError = result.status === null;
			const inWindow = Date.now() + waitMs - firstAt <= this.retryWindowMs;
			if (transportError && inWindow && generation === this.generation) {
				this.timers.set(() => {
					if (generation === this.generation) void run(attempt + 1, waitMs * BACKOFF_MULTIPLIER);
				}, waitMs);
			}
			return result;
		};
		return run(1, this.retryDelayMs);
	}

	/**
	 * @param {string} url
	 * @param {LiveEvent} event
	 * @param {string} body the event as JSON, or '' for an empty body
	 * @param {number} attempt
	 * @param {number} generation
	 * @returns {Promise<AttemptResult>}
	 */
	async attempt(url, event, body, attempt, generation) {
		const startedMs = Date.now();
		const at = isoTime(startedMs);
		const controller = new AbortController();
		this.inFlight.add(controller);
		/** @type {AttemptResult} */
		let result;
		try {
			const answer = await post(url, body, controller.signal);
			result = { status: answer.status, error: null, body: answer.body };
		} catch (error) {
			result = {
				status: null,
				error: error instanceof Error ? error.message : String(error),
				body: null,
			};
		} finally {
			this.inFlight.delete(controller);
		}
		if (generation === this.generation) {
			this.log.push({
				url,
				event_type: event.event,
				call_id: event.call.id,
				attempt,
				status: result.status,
				error: result.error,
				response_body: result.body,
				at,
				ms: Date.now() - startedMs,
				empty_body: body === '',
			});
		}
		return result;
	}

	/** Stops pending retries and aborts attempts under way (reset and close). */
	cancelAll() {
		this.generation++;
		for (const controller of this.inFlight) controller.abort();
		this.inFlight.clear();
	}
}

/**
 * One POST, as Go's http.Client sends it: no timeout, no connection kept for later.
 * @param {string} url
 * @param {string} body
 * @param {AbortSignal} signal
 * @returns {Promise<{ status: number, body: string }>}
 */
function post(url, body, signal) {
	const client = url.startsWith('https:') ? https : http;
	return new Promise((resolve, reject) => {
		const request = client.request(url, {
			method: 'POST',
			agent: false,
			signal,
			headers: {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(body),
				'user-agent': 'Go-http-client/1.1',
			},
		});
		request.on('error', reject);
		request.on('response', (response) => {
			let text = '';
			response.setEncoding('utf8');
			response.on('data', (chunk) => {
				if (text.length < MAX_LOGGED_BODY) text += chunk;
			});
			response.on('error', reject);
			response.on('end', () =>
				resolve({ status: response.statusCode ?? 0, body: text.slice(0, MAX_LOGGED_BODY) }),
			);
		});
		request.end(body);
	});
}

module.exports = { LiveSender, BACKOFF_MULTIPLIER };
