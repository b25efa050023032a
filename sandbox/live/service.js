'use strict';

const { LiveAccount } = require('./account');
const { LiveCalls } = require('./calls');
const { LiveSender } = require('./sender');
const { LiveSwitches } = require('./settings');
const { createLiveRoutes } = require('./routes');
const { seedLiveAccount } = require('./seed');
const { atoi } = require('./decode');
const { nowUs } = require('./time');
const { AREA_CODES } = require('../seedTemplates');

/** @typedef {import('../random').Random} Random */
/** @typedef {import('../timers').TimerSet} TimerSet */
/** @typedef {import('../callLoad').CallLoad} CallLoad */
/** @typedef {import('../variants').ContractVariants} ContractVariants */
/** @typedef {import('../logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('../logs').BoundedLog<RecordedDelivery>} DeliveryLog */
/** @typedef {import('../seed').SeedCounts} SeedCounts */
/** @typedef {import('../seed').SeedSummary} SeedSummary */
/** @typedef {import('../api').Reply} Reply */
/** @typedef {import('./types').LiveCallRecord} LiveCallRecord */

/** The live service's ids count up over every user, as a database's do; these are the last ones before. */
const FIRST_AGENT_ID = 101;
const FIRST_CALL_ID = 5001;
/** The `user_id` of the first API key; the others follow in the order of the keys. */
const FIRST_USER_ID = 1001;

/**
 * The live profile: the accounts of the keys that have it, and everything that serves them the way the
 * live service does (its endpoints, its call life, its webhook sender, its switches).
 */
class LiveService {
	/**
	 * @param {{ apiKeys: string[], liveKeys: string[], random: Random, ringMs: number, callDurationMs: number, retryDelayMs: number, retryWindowMs: number, deliveryLog: DeliveryLog, timers: TimerSet, load: CallLoad, variants: ContractVariants }} options
	 */
	constructor(options) {
		this.apiKeys = options.apiKeys;
		this.liveKeys = options.liveKeys;
		this.random = options.random;
		this.variants = options.variants;
		this.callDurationMs = options.callDurationMs;
		this.switches = new LiveSwitches({ ringMs: options.ringMs });
		this.sender = new LiveSender({
			retryDelayMs: options.retryDelayMs,
			retryWindowMs: options.retryWindowMs,
			log: options.deliveryLog,
			timers: options.timers,
			switches: this.switches,
		});
		this.calls = new LiveCalls({
			callDurationMs: options.callDurationMs,
			sender: this.sender,
			timers: options.timers,
			load: options.load,
			switches: this.switches,
			random: options.random,
		});
		this.routes = createLiveRoutes(this);
		/** @type {Map<string, LiveAccount>} */
		this.accounts = new Map();
		this.lastAgentId = 0;
		this.lastCallId = 0;
		/** @type {Set<string>} every number an agent of the service was given */
		this.numbers = new Set();
		this.clear();
	}

	/** Empty accounts; ids start again. */
	clear() {
		this.accounts = new Map(
			this.liveKeys.map((key) => [
				key,
				new LiveAccount(key, FIRST_USER_ID + this.apiKeys.indexOf(key)),
			]),
		);
		this.lastAgentId = FIRST_AGENT_ID - 1;
		this.lastCallId = FIRST_CALL_ID - 1;
		this.numbers = new Set();
	}

	nextAgentId() {
		return ++this.lastAgentId;
	}

	nextCallId() {
		return ++this.lastCallId;
	}

	/**
	 * A new phone number for a new agent. The service buys one wherever it can: `area_code` is never read.
	 * @returns {string}
	 */
	buyNumber() {
		for (;;) {
			const number = `+1${this.random.pick(AREA_CODES)}${this.random.digits(7)}`;
			if (!this.numbers.has(number)) {
				this.numbers.add(number);
				return number;
			}
		}
	}

	/**
	 * @param {string} apiKey a live key
	 * @returns {LiveAccount}
	 */
	account(apiKey) {
		const account = this.accounts.get(apiKey);
		if (!account) throw new Error('Not an API key of the live profile');
		return account;
	}

	/**
	 * A call of any live account (control endpoints are not scoped to a key).
	 * @param {string} id as the control path writes it
	 * @returns {{ account: LiveAccount, call: LiveCallRecord } | undefined}
	 */
	findCall(id) {
		const number = atoi(id);
		if (number === undefined) return undefined;
		for (const account of this.accounts.values()) {
			const call = account.calls.get(number);
			if (call) return { account, call };
		}
		return undefined;
	}

	/**
	 * Runs an endpoint for a live account.
	 * @param {string} apiKey
	 * @param {string} route "METHOD /path" relative to /v1
	 * @param {URLSearchParams} query
	 * @param {unknown} body the parsed JSON body, undefined when there is none or it is not JSON
	 * @returns {Reply}
	 */
	serve(apiKey, route, query, body) {
		const handler = this.routes.get(route);
		if (!handler) throw new Error(`No live handler for ${route}`);
		return handler({ account: this.account(apiKey), query, body });
	}

	/**
	 * Seeds a live account; its calls in progress connect now and last `durationMs`.
	 * @param {string} apiKey
	 * @param {SeedCounts} counts
	 * @param {number} [durationMs]
	 * @returns {SeedSummary}
	 */
	seed(apiKey, counts, durationMs = this.callDurationMs) {
		const account = this.account(apiKey);
		const { summary, liveCalls } = seedLiveAccount(account, counts, {
			random: this.random,
			agentId: () => this.nextAgentId(),
			callId: () => this.nextCallId(),
			buyNumber: () => this.buyNumber(),
			nowUs: nowUs(),
		});
		for (const call of liveCalls) this.calls.startConnected(account, call, durationMs);
		return summary;
	}

	/** POST /_sandbox/reset: empty accounts, ids from the start, the start's switches. */
	reset() {
		this.clear();
		this.switches.reset();
	}

	/** Cancels calls under way and deliveries, with their timers (reset and close). */
	cancelAll() {
		this.calls.cancelAll();
		this.sender.cancelAll();
	}
}

module.exports = { LiveService };
