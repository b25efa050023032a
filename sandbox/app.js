'use strict';

const { Random } = require('./random');
const { Store } = require('./store');
const { TimerSet } = require('./timers');
const { BoundedLog } = require('./logs');
const { WebhookDispatcher } = require('./webhooks');
const { CallSimulator } = require('./simulation');
const { FaultInjector } = require('./faults');
const { TokenBuckets } = require('./rateLimit');
const { TrafficCounter } = require('./traffic');
const { CallLoad } = require('./callLoad');
const { createApiRoutes } = require('./api');
const { seedAccount } = require('./seed');
const { ContractVariants } = require('./variants');
const { LiveService } = require('./live/service');
const { ProfileTable, documentedProfile, liveProfile } = require('./profiles');

/** @typedef {import('./options').ResolvedOptions} ResolvedOptions */
/** @typedef {import('./logs').RecordedRequest} RecordedRequest */
/** @typedef {import('./logs').RecordedDelivery} RecordedDelivery */
/** @typedef {import('./seed').SeedCounts} SeedCounts */
/** @typedef {import('./seed').SeedSummary} SeedSummary */
/** @typedef {import('./profiles').ServiceProfile} ServiceProfile */

/**
 * The state of one sandbox and the parts that act on it; the HTTP layer (server.js) reads and calls these.
 */
class SandboxApp {
	/** @param {ResolvedOptions} config */
	constructor(config) {
		this.apiKeys = config.apiKeys;
		this.latencyMs = config.latencyMs;
		this.random = new Random(config.seed);
		this.profiles = new ProfileTable(config.apiKeys, config.profiles);
		/** The accounts of the documented keys; the live keys' are in `live`. */
		this.store = new Store(this.profiles.keysOf('documented'));
		/** @type {BoundedLog<RecordedRequest>} */
		this.requestLog = new BoundedLog();
		/** @type {BoundedLog<RecordedDelivery>} */
		this.deliveryLog = new BoundedLog();
		/** Latency sleeps of requests under way; cleared only by close. */
		this.requestTimers = new TimerSet();
		/** Call steps and webhook retries; cleared by reset and close. */
		this.simulationTimers = new TimerSet();
		this.webhooks = new WebhookDispatcher({
			retryDelayMs: config.webhookRetryDelayMs,
			log: this.deliveryLog,
			timers: this.simulationTimers,
		});
		this.callLoad = new CallLoad();
		this.variants = new ContractVariants(config.variants);
		this.simulation = new CallSimulator({
			callDurationMs: config.callDurationMs,
			load: this.callLoad,
			webhooks: this.webhooks,
			timers: this.simulationTimers,
			variants: this.variants,
		});
		this.apiRoutes = createApiRoutes({
			random: this.random,
			simulation: this.simulation,
			variants: this.variants,
		});
		this.live = new LiveService({
			apiKeys: config.apiKeys,
			liveKeys: this.profiles.keysOf('live'),
			random: this.random,
			ringMs: config.ringMs,
			callDurationMs: config.callDurationMs,
			retryDelayMs: config.webhookRetryDelayMs,
			retryWindowMs: config.webhookRetryWindowMs,
			deliveryLog: this.deliveryLog,
			timers: this.simulationTimers,
			load: this.callLoad,
			variants: this.variants,
		});
		/** @type {Record<import('./profiles').SandboxProfile, ServiceProfile>} */
		this.serviceProfiles = { documented: documentedProfile(this), live: liveProfile(this) };
		this.faults = new FaultInjector(this.random, new Set(this.apiRoutes.keys()));
		this.rateLimits = new TokenBuckets();
		this.traffic = new TrafficCounter();

		this.seed(config.apiKeys[0], {
			agents: config.agents,
			calls: config.calls,
			liveCalls: config.liveCalls,
		});
	}

	/**
	 * The profile that answers a request with this Authorization header: its key's, or for a key the sandbox
	 * does not accept (or none), the first key's.
	 * @param {string | undefined} authorization
	 * @returns {ServiceProfile}
	 */
	profileFor(authorization) {
		const key = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? '';
		return this.serviceProfiles[
			this.profiles.of(key) ?? this.profiles.of(this.apiKeys[0]) ?? 'documented'
		];
	}

	/**
	 * Seeds the account of a key (at start and through POST /_sandbox/seed) and starts its live calls, which
	 * then run like placed calls: events to the agent's webhook, and after `callDurationMs` they end.
	 * @param {string} apiKey
	 * @param {SeedCounts} counts
	 * @param {number} [callDurationMs] how long the live calls last (default: the sandbox's call length)
	 * @returns {SeedSummary}
	 */
	seed(apiKey, counts, callDurationMs) {
		if (this.profiles.of(apiKey) === 'live') return this.live.seed(apiKey, counts, callDurationMs);
		const account = this.store.account(apiKey);
		if (!account) throw new Error('Not an API key of the sandbox');
		const endStatus = () => this.variants.nextEndStatus();
		const { summary, liveCalls } = seedAccount(account, counts, this.random, Date.now(), endStatus);
		for (const call of liveCalls) this.simulation.start(account, call, callDurationMs);
		return summary;
	}

	/**
	 * POST /_sandbox/reset: empty accounts, no logs, faults, rate limits or traffic counts, no call in flight,
	 * and the variants and live settings of the start options. Each key keeps its profile.
	 */
	reset() {
		this.stopActivity();
		this.store.clear();
		this.live.reset();
		this.requestLog.clear();
		this.deliveryLog.clear();
		this.faults.clear();
		this.rateLimits.clear();
		this.traffic.clear();
		this.variants.reset();
		this.random.restart();
	}

	/** Cancels simulated calls and webhook deliveries, including their pending timers. */
	stopActivity() {
		this.simulation.cancelAll();
		this.webhooks.cancelAll();
		this.live.cancelAll();
	}

	/** Leaves no timer behind (close). */
	stop() {
		this.stopActivity();
		this.requestTimers.clearAll();
	}
}

module.exports = { SandboxApp };
