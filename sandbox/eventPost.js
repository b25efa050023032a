'use strict';

const http = require('node:http');
const https = require('node:https');
const { isoTime } = require('./records');

/** @typedef {import('./logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('./logs').BoundedLog<RecordedDelivery>} DeliveryLog */
/** @typedef {{ status: number | null, error: string | null, body: string | null }} AttemptResult */
/**
 * @typedef {object} PostStyle how a sender's POSTs go out
 * @property {string} userAgent
 * @property {number} [timeoutMs] none: the attempt waits as long as the receiver takes
 * @property {boolean} [timed] log how long each attempt waited (`ms`) and whether its body was empty
 */

/** Receiver answers are logged up to this many characters. */
const MAX_LOGGED_BODY = 2048;

/**
 * What both event senders share: attempts in flight that `cancelAll` aborts, a generation that keeps
 * attempts and retries of before a reset out of the log, and one log entry per attempt. Each sender decides
 * what an event looks like and when to try again.
 */
class EventAttempts {
	/**
	 * @param {{ log: DeliveryLog, style: PostStyle }} options
	 */
	constructor({ log, style }) {
		this.log = log;
		this.style = style;
		/** @type {Set<AbortController>} */
		this.inFlight = new Set();
		// Bumped by cancelAll: attempts and retries of an older generation are neither logged nor continued.
		this.generation = 0;
	}

	/**
	 * One POST of an event, logged as the event's `event_type` and `call_id`.
	 * @param {string} url
	 * @param {{ event_type: string, call_id: string | number }} names
	 * @param {string} body
	 * @param {number} attempt
	 * @param {number} generation
	 * @returns {Promise<AttemptResult>}
	 */
	async attempt(url, names, body, attempt, generation) {
		const startedMs = Date.now();
		const controller = new AbortController();
		this.inFlight.add(controller);
		/** @type {AttemptResult} */
		let result;
		try {
			const answer = await post(url, body, controller.signal, this.style);
			result = { status: answer.status, error: null, body: answer.body };
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			result = { status: null, error: message, body: null };
		} finally {
			this.inFlight.delete(controller);
		}
		if (generation === this.generation) {
			this.log.push({
				url,
				...names,
				attempt,
				status: result.status,
				error: result.error,
				response_body: result.body,
				at: isoTime(startedMs),
				...(this.style.timed ? { ms: Date.now() - startedMs, empty_body: body === '' } : {}),
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
 * One POST of JSON without connection reuse (no sockets stay open after it).
 * @param {string} url
 * @param {string} body
 * @param {AbortSignal} signal
 * @param {PostStyle} style
 * @returns {Promise<{ status: number, body: string }>}
 */
function post(url, body, signal, { userAgent, timeoutMs }) {
	const client = url.startsWith('https:') ? https : http;
	return new Promise((resolve, reject) => {
		const request = client.request(url, {
			method: 'POST',
			agent: false,
			signal,
			...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
			headers: {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(body),
				'user-agent': userAgent,
			},
		});
		request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
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

module.exports = { EventAttempts };
