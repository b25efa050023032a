'use strict';

/** The window of "calls created per minute". */
const WINDOW_MS = 60_000;

/**
 * How many calls each account has in progress, the most it had at once, and the most calls it created
 * in any 60 s window, for GET /_sandbox/call-load: what a client that paces or bounds its calls must
 * stay under. Counts start again on DELETE /_sandbox/call-load and on reset (calls in progress stay).
 */
class CallLoad {
	constructor() {
		/** @type {Map<string, { inProgress: number, maxInProgress: number, created: number, maxCreatedInWindow: number, recent: number[] }>} */
		this.byAccount = new Map();
	}

	/** @param {string} apiKey */
	of(apiKey) {
		let load = this.byAccount.get(apiKey);
		if (!load) {
			load = { inProgress: 0, maxInProgress: 0, created: 0, maxCreatedInWindow: 0, recent: [] };
			this.byAccount.set(apiKey, load);
		}
		return load;
	}

	/**
	 * POST /call created a call for the account at `now`.
	 * @param {string} apiKey
	 * @param {number} now
	 */
	created(apiKey, now) {
		const load = this.of(apiKey);
		load.created++;
		// Creation times of the last 60 s only: the window ending now holds them all.
		while (load.recent.length > 0 && load.recent[0] <= now - WINDOW_MS) load.recent.shift();
		load.recent.push(now);
		load.maxCreatedInWindow = Math.max(load.maxCreatedInWindow, load.recent.length);
	}

	/** @param {string} apiKey a call of the account started (placed or seeded live) */
	started(apiKey) {
		const load = this.of(apiKey);
		load.inProgress++;
		load.maxInProgress = Math.max(load.maxInProgress, load.inProgress);
	}

	/** @param {string} apiKey a call of the account ended */
	ended(apiKey) {
		this.of(apiKey).inProgress--;
	}

	/** Starts counting again; calls in progress now are the new starting point of the maximum. */
	clear() {
		for (const load of this.byAccount.values()) {
			load.maxInProgress = load.inProgress;
			load.created = 0;
			load.maxCreatedInWindow = 0;
			load.recent = [];
		}
	}

	/** Forgets everything (reset: no call is in progress any more). */
	reset() {
		this.byAccount.clear();
	}

	/**
	 * One entry per API key the sandbox was started with, in that order (`account` is its position, so
	 * the keys themselves are never echoed).
	 * @param {string[]} apiKeys
	 */
	describe(apiKeys) {
		return {
			accounts: apiKeys.map((apiKey, account) => {
				const load = this.byAccount.get(apiKey);
				return {
					account,
					in_progress: load?.inProgress ?? 0,
					max_in_progress: load?.maxInProgress ?? 0,
					calls_created: load?.created ?? 0,
					max_created_in_60s: load?.maxCreatedInWindow ?? 0,
				};
			}),
		};
	}
}

module.exports = { CallLoad, WINDOW_MS };
