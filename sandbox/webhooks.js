'use strict';

const { EventAttempts } = require('./eventPost');

/** @typedef {import('./logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('./logs').BoundedLog<RecordedDelivery>} DeliveryLog */
/** @typedef {import('./timers').TimerSet} TimerSet */
/** @typedef {import('./eventPost').AttemptResult} AttemptResult */

/**
 * @typedef {object} WebhookEvent what the service POSTs to an agent's webhook (docs/service.md, "Events")
 * @property {'call_started' | 'call_ended' | 'tool_call'} event_type
 * @property {string} call_id
 * @property {string} timestamp when the event happened; the same on every retry
 * @property {unknown} data
 */

/** A first attempt and up to 3 retries. */
const MAX_ATTEMPTS = 4;
const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * POSTs events to webhooks: 2xx is delivered; any other answer, a network error or a timeout is retried
 * after `retryDelayMs`, up to MAX_ATTEMPTS attempts in all. Every attempt is recorded in the delivery log.
 */
class WebhookDispatcher extends EventAttempts {
	/**
	 * @param {{ retryDelayMs: number, log: DeliveryLog, timers: TimerSet }} options
	 */
	constructor({ retryDelayMs, log, timers }) {
		super({ log, style: { userAgent: 'voice-agent-sandbox', timeoutMs: ATTEMPT_TIMEOUT_MS } });
		this.retryDelayMs = retryDelayMs;
		this.timers = timers;
	}

	/**
	 * Delivers an event; resolves with the first attempt's result while retries go on in the background.
	 * @param {string} url
	 * @param {WebhookEvent} event
	 * @returns {Promise<AttemptResult>}
	 */
	send(url, event) {
		const generation = this.generation;
		const body = JSON.stringify(event); // once: every retry sends the same bytes
		/** @param {number} attempt */
		const run = async (attempt) => {
			const names = { event_type: event.event_type, call_id: event.call_id };
			const result = await this.attempt(url, names, body, attempt, generation);
			const delivered = result.status !== null && result.status >= 200 && result.status < 300;
			if (!delivered && attempt < MAX_ATTEMPTS && generation === this.generation) {
				this.timers.set(() => {
					if (generation === this.generation) void run(attempt + 1);
				}, this.retryDelayMs);
			}
			return result;
		};
		return run(1);
	}
}

module.exports = { WebhookDispatcher };
