'use strict';

const { EventAttempts } = require('../eventPost');

/** @typedef {import('../logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('../logs').BoundedLog<RecordedDelivery>} DeliveryLog */
/** @typedef {import('../timers').TimerSet} TimerSet */
/** @typedef {import('../eventPost').AttemptResult} AttemptResult */
/** @typedef {import('./types').LiveEvent} LiveEvent */
/** @typedef {import('./settings').LiveSwitches} LiveSwitches */

/** Each wait of the backoff is this many times the one before (cenkalti/backoff's default, probably). */
const BACKOFF_MULTIPLIER = 1.5;

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
class LiveSender extends EventAttempts {
	/**
	 * @param {{ retryDelayMs: number, retryWindowMs: number, log: DeliveryLog, timers: TimerSet, switches: LiveSwitches }} options
	 */
	constructor({ retryDelayMs, retryWindowMs, log, timers, switches }) {
		// As Go's http.Client sends: no timeout.
		super({ log, style: { userAgent: 'Go-http-client/1.1', timed: true } });
		this.retryDelayMs = retryDelayMs;
		this.retryWindowMs = retryWindowMs;
		this.timers = timers;
		this.switches = switches;
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
			const names = { event_type: event.event, call_id: event.call.id };
			const result = await this.attempt(url, names, empty ? '' : body, attempt, generation);
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
}

module.exports = { LiveSender, BACKOFF_MULTIPLIER };
