'use strict';

const { ApiError } = require('./errors');

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */
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

/**
 * @template {SortKey} T
 * @param {Map<string, SortedIndex<T>>} indexes
 * @param {string} key
 * @returns {SortedIndex<T>}
 */
function indexFor(indexes, key) {
	let index = indexes.get(key);
	if (!index) {
		index = new SortedIndex();
		indexes.set(key, index);
	}
	return index;
}

/**
 * Everything one API key owns. Keys never see each other's data.
 */
class Account {
	/** @param {string} apiKey */
	constructor(apiKey) {
		this.apiKey = apiKey;
		/** @type {Map<string, Agent>} */
		this.agents = new Map();
		/** @type {Map<string, Agent>} upsert finds agents by name */
		this.agentsByName = new Map();
		/** @type {Map<string, Agent>} POST /call finds the calling agent by its number */
		this.agentsByPhone = new Map();
		/** @type {SortedIndex<Agent>} */
		this.agentList = new SortedIndex();
		/** @type {Map<string, Call>} */
		this.calls = new Map();
		/** @type {SortedIndex<Call>} */
		this.callList = new SortedIndex();
		// Per-filter indexes, so a filtered page does not scan other agents' or clients' calls.
		/** @type {Map<string, SortedIndex<Call>>} */
		this.callsByAgent = new Map();
		/** @type {Map<string, SortedIndex<Call>>} */
		this.callsByClient = new Map();
	}

	/** @param {Agent} agent */
	addAgent(agent) {
		this.agents.set(agent.id, agent);
		this.agentsByName.set(agent.name, agent);
		this.agentsByPhone.set(agent.phone_number, agent);
		this.agentList.insert(agent);
	}

	/** @param {Agent} agent */
	removeAgent(agent) {
		this.agents.delete(agent.id);
		this.agentsByName.delete(agent.name);
		this.agentsByPhone.delete(agent.phone_number);
		this.agentList.remove(agent);
	}

	/** @param {Call} call */
	addCall(call) {
		this.calls.set(call.id, call);
		this.callList.insert(call);
		indexFor(this.callsByAgent, call.agent_id).insert(call);
		indexFor(this.callsByClient, call.to).insert(call);
	}

	/** @param {Call[]} calls */
	addCalls(calls) {
		/** @type {Map<SortedIndex<Call>, Call[]>} */
		const batches = new Map([[this.callList, calls]]);
		for (const call of calls) {
			this.calls.set(call.id, call);
			for (const index of [
				indexFor(this.callsByAgent, call.agent_id),
				indexFor(this.callsByClient, call.to),
			]) {
				const batch = batches.get(index);
				if (batch) batch.push(call);
				else batches.set(index, [call]);
			}
		}
		for (const [index, batch] of batches) index.insertMany(batch);
	}

	/**
	 * @param {{ after: SortKey | null, limit: number, agentId?: string, clientNumber?: string }} query
	 * @returns {{ items: Call[], hasMore: boolean }}
	 */
	listCalls({ after, limit, agentId, clientNumber }) {
		/** @type {SortedIndex<Call>} */
		const empty = new SortedIndex();
		const byAgent = agentId === undefined ? undefined : (this.callsByAgent.get(agentId) ?? empty);
		const byClient =
			clientNumber === undefined ? undefined : (this.callsByClient.get(clientNumber) ?? empty);
		if (byAgent && byClient) {
			// Both filters: walk the smaller index and test the other condition.
			return byAgent.items.length <= byClient.items.length
				? byAgent.page(after, limit, (call) => call.to === clientNumber)
				: byClient.page(after, limit, (call) => call.agent_id === agentId);
		}
		return (byAgent ?? byClient ?? this.callList).page(after, limit);
	}

	/**
	 * A phone number `+1` + area code + 7 digits that no agent of this account has.
	 * @param {string} areaCode
	 * @param {() => string} sevenDigits
	 * @returns {string}
	 */
	allocatePhoneNumber(areaCode, sevenDigits) {
		for (;;) {
			const number = `+1${areaCode}${sevenDigits()}`;
			if (!this.agentsByPhone.has(number)) return number;
		}
	}
}

/** All accounts, one per configured API key. */
class Store {
	/** @param {string[]} apiKeys */
	constructor(apiKeys) {
		/** @type {Map<string, Account>} */
		this.accounts = new Map(apiKeys.map((key) => [key, new Account(key)]));
	}

	/**
	 * @param {string} apiKey
	 * @returns {Account | undefined}
	 */
	account(apiKey) {
		return this.accounts.get(apiKey);
	}

	/**
	 * A call of any account (control endpoints are not scoped to a key).
	 * @param {string} id
	 * @returns {{ account: Account, call: Call } | undefined}
	 */
	findCall(id) {
		for (const account of this.accounts.values()) {
			const call = account.calls.get(id);
			if (call) return { account, call };
		}
		return undefined;
	}

	/** Empties every account; the keys stay valid. */
	clear() {
		for (const key of this.accounts.keys()) this.accounts.set(key, new Account(key));
	}
}

module.exports = { Store, Account, encodeCursor, decodeCursor };
