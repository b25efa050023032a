'use strict';

const http = require('node:http');
const https = require('node:https');
const { isoTime } = require('./records');

/** @typedef {import('./logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('./logs').BoundedLog<RecordedDelivery>} DeliveryLog */
/** @typedef {import('./timers').TimerSet} TimerSet */

/**
 * @typedef {object} WebhookEvent what the service POSTs to an agent's webhook (docs/service.md, "Events")
 * @property {'call_started' | 'call_ended' | 'tool_call'} event_type
 * @property {string} call_id
 * @property {string} timestamp when the event happened; the same on every retry
 * @property {unknown} data
 */

/** @typedef {{ status: number | null, error: string | null, body: string | null }} AttemptResult */

/** A first attempt and up to 3 retries. */
const MAX_ATTEMPTS = 4;
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Receiver answers are logged up to this many characters. */
const MAX_LOGGED_BODY = 2048;

/**
 * POSTs events to webhooks: 2xx is delivered; any other answer, a network error or a timeout is retried
 * after `retryDelayMs`, up to MAX_ATTEMPTS attempts in all. Every attempt is recorded in the delivery log.
 */
class WebhookDispatcher {
	/**
	 * @param {{ retryDelayMs: number, log: DeliveryLog, timers: TimerSet }} options
	 */
	constructor({ retryDelayMs, log, timers }) {
		this.retryDelayMs = retryDelayMs;
		this.log = log;
		this.timers = timers;
		/** @type {Set<AbortController>} */
		this.inFlight = new Set();
		// Bumped by cancelAll: attempts and retries of an older generation are neither logged nor continued.
		this.generation = 0;
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
			const result = await this.attempt(url, event, body, attempt, generation);
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

	/**
	 * @param {string} url
	 * @param {WebhookEvent} event
	 * @param {string} body the event as JSON
	 * @param {number} attempt
	 * @param {number} generation
	 * @returns {Promise<AttemptResult>}
	 */
	async attempt(url, event, body, attempt, generation) {
		const at = isoTime(Date.now());
		const controller = new AbortController();
		this.inFlight.add(controller);
		/** @type {AttemptResult} */
		let result;
		try {
			const answer = await postJson(url, body, controller.signal);
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
				event_type: event.event_type,
				call_id: event.call_id,
				attempt,
				status: result.status,
				error: result.error,
				response_body: result.body,
				at,
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
 * One POST without connection reuse (no sockets stay open after it), with a timeout.
 * @param {string} url
 * @param {string} body JSON
 * @param {AbortSignal} signal
 * @returns {Promise<{ status: number, body: string }>}
 */
function postJson(url, body, signal) {
	const client = url.startsWith('https:') ? https : http;
	return new Promise((resolve, reject) => {
		const request = client.request(url, {
			method: 'POST',
			agent: false,
			signal,
			timeout: ATTEMPT_TIMEOUT_MS,
			headers: {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(body),
				'user-agent': 'voice-agent-sandbox',
			},
		});
		request.on('timeout', () =>
			request.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)),
		);
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

module.exports = { WebhookDispatcher };
