'use strict';

/**
 * Deterministic pseudo-random numbers (mulberry32). The sandbox draws seed data, ids and fault dice from
 * one stream, so the same seed and the same sequence of requests give the same data and the same ids.
 */
class Random {
	/** @param {number} seed any integer; only its low 32 bits matter */
	constructor(seed) {
		this.seed = seed >>> 0;
		this.state = this.seed;
	}

	/** Starts the stream over from the seed (POST /_sandbox/reset). */
	restart() {
		this.state = this.seed;
	}

	/** @returns {number} a float in [0, 1) */
	next() {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/**
	 * @param {number} min
	 * @param {number} max inclusive
	 * @returns {number} an integer in [min, max]
	 */
	int(min, max) {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	/**
	 * @template T
	 * @param {readonly T[]} items a non-empty array
	 * @returns {T}
	 */
	pick(items) {
		return items[Math.floor(this.next() * items.length)];
	}

	/**
	 * @param {number} count
	 * @returns {string} `count` decimal digits
	 */
	digits(count) {
		let out = '';
		for (let i = 0; i < count; i++) out += String(this.int(0, 9));
		return out;
	}

	/**
	 * An opaque identifier such as `call_3f09a1c27be4d805`. Callers check uniqueness where it matters.
	 * @param {string} prefix
	 * @returns {string}
	 */
	id(prefix) {
		let hex = '';
		for (let i = 0; i < 2; i++)
			hex += Math.floor(this.next() * 0x100000000)
				.toString(16)
				.padStart(8, '0');
		return `${prefix}_${hex}`;
	}
}

module.exports = { Random };
