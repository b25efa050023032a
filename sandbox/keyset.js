'use strict';

// Keyset pagination: both lists are kept sorted newest first, and a cursor is the sort key of the last
// item of a page, so a page starts with a binary search and items added meanwhile never shift it.

const { ApiError } = require('./errors');

/** @typedef {{ id: string, created_ms: number }} SortKey */

/**
 * List order of both lists: newest first, `id` descending as the tie-break.
 * @param {SortKey} a
 * @param {SortKey} b
 * @returns {number} negative when `a` is listed before `b`
 */
function compareNewestFirst(a, b) {
	if (a.created_ms !== b.created_ms) return b.created_ms - a.created_ms;
	return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Items kept in list order, so a page starts with a binary search for the cursor's key instead of a scan:
 * a page of 20,000 calls costs O(log n + limit).
 * @template {SortKey} T
 */
class SortedIndex {
	constructor() {
		/** @type {T[]} */
		this.items = [];
	}

	/**
	 * Index of the first item listed after `key` (items equal to `key` come before it).
	 * @param {SortKey} key
	 * @returns {number}
	 */
	positionAfter(key) {
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (compareNewestFirst(this.items[mid], key) <= 0) low = mid + 1;
			else high = mid;
		}
		return low;
	}

	/** @param {T} item */
	insert(item) {
		this.items.splice(this.positionAfter(item), 0, item);
	}

	/**
	 * Bulk insert (seeding): one sort instead of one splice per item.
	 * @param {T[]} items
	 */
	insertMany(items) {
		for (const item of items) this.items.push(item);
		this.items.sort(compareNewestFirst);
	}

	/** @param {T} item */
	remove(item) {
		const index = this.positionAfter(item) - 1;
		if (index >= 0 && this.items[index] === item) this.items.splice(index, 1);
	}

	/**
	 * One page: up to `limit` items listed after `after` (or from the top) that pass `accept`.
	 * Without `accept` this is a slice; with it, a scan forward from the cursor position.
	 * @param {SortKey | null} after
	 * @param {number} limit
	 * @param {(item: T) => boolean} [accept]
	 * @returns {{ items: T[], hasMore: boolean }}
	 */
	page(after, limit, accept) {
		const start = after ? this.positionAfter(after) : 0;
		if (!accept) {
			return {
				items: this.items.slice(start, start + limit),
				hasMore: start + limit < this.items.length,
			};
		}
		/** @type {T[]} */
		const items = [];
		for (let i = start; i < this.items.length; i++) {
			if (!accept(this.items[i])) continue;
			if (items.length === limit) return { items, hasMore: true };
			items.push(this.items[i]);
		}
		return { items, hasMore: false };
	}
}

/**
 * Cursors are opaque to clients; here they are the base64url of the last item's sort key, tagged with the
 * list they belong to. They do not point at an item, so deleting it or inserting new items keeps them valid.
 * @param {'agents' | 'calls'} list
 * @param {SortKey} item
 * @returns {string}
 */
function encodeCursor(list, item) {
	return Buffer.from(`${list}|${item.created_ms}|${item.id}`, 'utf8').toString('base64url');
}

/**
 * @param {'agents' | 'calls'} list
 * @param {string} cursor
 * @returns {SortKey}
 */
function decodeCursor(list, cursor) {
	const parts = /^[A-Za-z0-9_-]+$/.test(cursor)
		? Buffer.from(cursor, 'base64url').toString('utf8').split('|')
		: [];
	if (parts.length !== 3 || parts[0] !== list || !/^\d{1,15}$/.test(parts[1]) || parts[2] === '') {
		throw new ApiError(
			400,
			`cursor is not a cursor of this list: pass the cursor value of the previous GET /${list} response`,
		);
	}
	return { created_ms: Number(parts[1]), id: parts[2] };
}

module.exports = { SortedIndex, encodeCursor, decodeCursor };
