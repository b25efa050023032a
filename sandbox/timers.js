'use strict';

/**
 * A group of timeouts that can be cancelled together. Every timer the sandbox starts belongs to one, so
 * reset and close leave nothing pending (Jest must be able to exit).
 */
class TimerSet {
	constructor() {
		/** @type {Set<NodeJS.Timeout>} */
		this.pending = new Set();
	}

	/**
	 * @param {() => void} callback
	 * @param {number} ms
	 * @returns {NodeJS.Timeout}
	 */
	set(callback, ms) {
		const timer = setTimeout(() => {
			this.pending.delete(timer);
			callback();
		}, ms);
		this.pending.add(timer);
		return timer;
	}

	/** @param {NodeJS.Timeout} timer */
	clear(timer) {
		clearTimeout(timer);
		this.pending.delete(timer);
	}

	/**
	 * Resolves after `ms`; never resolves if the set is cleared first.
	 * @param {number} ms
	 * @returns {Promise<void>}
	 */
	sleep(ms) {
		return new Promise((resolve) => {
			this.set(resolve, ms);
		});
	}

	clearAll() {
		for (const timer of this.pending) clearTimeout(timer);
		this.pending.clear();
	}
}

module.exports = { TimerSet };
