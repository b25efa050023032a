'use strict';

/**
 * Token buckets, one per key (the caller makes it "API key + endpoint"). A bucket holds up to
 * max(1, rate) tokens and refills at `rate` tokens per second; a request takes one token.
 */
class TokenBuckets {
	constructor() {
		/** @type {Map<string, { tokens: number, updatedMs: number }>} */
		this.buckets = new Map();
	}

	/**
	 * @param {string} key
	 * @param {number} ratePerSecond greater than 0
	 * @param {number} nowMs
	 * @returns {number} 0 when a token was taken; otherwise the whole seconds until one is available (>= 1),
	 *   the value of Retry-After
	 */
	take(key, ratePerSecond, nowMs) {
		const capacity = Math.max(1, ratePerSecond);
		const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedMs: nowMs };
		this.buckets.set(key, bucket);
		bucket.tokens = Math.min(
			capacity,
			bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * ratePerSecond,
		);
		bucket.updatedMs = nowMs;
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return 0;
		}
		return Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond));
	}

	clear() {
		this.buckets.clear();
	}
}

module.exports = { TokenBuckets };
