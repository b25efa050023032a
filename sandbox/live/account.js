'use strict';

// One live account and its lists. The live service orders a list by created_at, newest first, with no
// tie-break, and a page after a cursor is `created_at < cursor`: so a list is kept sorted by time and a page
// starts with a binary search for the first item created before the cursor. (Items of one microsecond are
// listed by id, ascending: an order of the sandbox's own, as the service promises none.)

/** @typedef {import('./types').LiveAgentRecord} LiveAgentRecord */
/** @typedef {import('./types').LiveCallRecord} LiveCallRecord */
/** @typedef {{ createdUs: number, row: { id: number } }} Listed */

/**
 * @param {Listed} a
 * @param {Listed} b
 * @returns {number} negative when `a` is listed before `b`
 */
function compareListed(a, b) {
	return b.createdUs - a.createdUs || a.row.id - b.row.id;
}

/** @template {Listed} T */
class NewestFirst {
	constructor() {
		/** @type {T[]} */
		this.items = [];
	}

	/**
	 * The index of the first item `before` says is not listed before the point (binary search).
	 * @param {(item: T) => boolean} before true for every item listed before the point
	 */
	search(before) {
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (before(this.items[mid])) low = mid + 1;
			else high = mid;
		}
		return low;
	}

	/** @param {T} item */
	insert(item) {
		this.items.splice(
			this.search((other) => compareListed(other, item) < 0),
			0,
			item,
		);
	}

	/** @param {T[]} items */
	insertMany(items) {
		for (const item of items) this.items.push(item);
		this.items.sort(compareListed);
	}

	/** @param {T} item */
	remove(item) {
		const index = this.items.indexOf(item);
		if (index >= 0) this.items.splice(index, 1);
	}

	/**
	 * Up to `limit` items created before `beforeUs` (all when undefined) that pass `accept`.
	 * @param {number | undefined} beforeUs
	 * @param {number} limit
	 * @param {(item: T) => boolean} [accept]
	 * @returns {T[]}
	 */
	page(beforeUs, limit, accept = () => true) {
		const start = beforeUs === undefined ? 0 : this.search((item) => item.createdUs >= beforeUs);
		/** @type {T[]} */
		const items = [];
		for (let i = start; i < this.items.length && items.length < limit; i++) {
			if (accept(this.items[i])) items.push(this.items[i]);
		}
		return items;
	}
}

/**
 * @template K
 * @param {Map<K, NewestFirst<LiveCallRecord>>} indexes
 * @param {K} key
 * @returns {NewestFirst<LiveCallRecord>}
 */
function indexFor(indexes, key) {
	let index = indexes.get(key);
	if (!index) {
		index = new NewestFirst();
		indexes.set(key, index);
	}
	return index;
}

/** Everything one live API key owns: one user of the live service. */
class LiveAccount {
	/**
	 * @param {string} apiKey
	 * @param {number} userId the `user_id` of its rows
	 */
	constructor(apiKey, userId) {
		this.apiKey = apiKey;
		this.userId = userId;
		/** @type {Map<number, LiveAgentRecord>} */
		this.agents = new Map();
		/** @type {Map<string, LiveAgentRecord>} */
		this.agentsByName = new Map();
		/** @type {Map<string, LiveAgentRecord>} */
		this.agentsByPhone = new Map();
		/** @type {NewestFirst<LiveAgentRecord>} */
		this.agentList = new NewestFirst();
		/** @type {Map<number, LiveCallRecord>} */
		this.calls = new Map();
		/** @type {NewestFirst<LiveCallRecord>} */
		this.callList = new NewestFirst();
		/** @type {Map<number, NewestFirst<LiveCallRecord>>} */
		this.callsByAgent = new Map();
		/** @type {Map<string, NewestFirst<LiveCallRecord>>} calls by client_number, once they have one */
		this.callsByClient = new Map();
	}

	/** @param {LiveAgentRecord} agent */
	addAgent(agent) {
		this.agents.set(agent.row.id, agent);
		this.agentsByName.set(agent.row.name, agent);
		this.agentsByPhone.set(agent.row.phone_number, agent);
		this.agentList.insert(agent);
	}

	/** @param {LiveAgentRecord} agent */
	removeAgent(agent) {
		this.agents.delete(agent.row.id);
		this.agentsByName.delete(agent.row.name);
		this.agentsByPhone.delete(agent.row.phone_number);
		this.agentList.remove(agent);
	}

	/** @param {LiveCallRecord[]} calls */
	addCalls(calls) {
		for (const call of calls) this.calls.set(call.row.id, call);
		this.callList.insertMany(calls);
		/** @type {Map<NewestFirst<LiveCallRecord>, LiveCallRecord[]>} */
		const batches = new Map();
		for (const call of calls) {
			const indexes = [indexFor(this.callsByAgent, call.row.agent_id)];
			if (call.row.client_number !== '')
				indexes.push(indexFor(this.callsByClient, call.row.client_number));
			for (const index of indexes) {
				const batch = batches.get(index);
				if (batch) batch.push(call);
				else batches.set(index, [call]);
			}
		}
		for (const [index, batch] of batches) index.insertMany(batch);
	}

	/** @param {LiveCallRecord} call */
	addCall(call) {
		this.calls.set(call.row.id, call);
		this.callList.insert(call);
		indexFor(this.callsByAgent, call.row.agent_id).insert(call);
	}

	/**
	 * The call has its client_number now (it connected): `GET /calls?client_number=` finds it from now on.
	 * @param {LiveCallRecord} call
	 */
	numbered(call) {
		indexFor(this.callsByClient, call.row.client_number).insert(call);
	}

	/**
	 * @param {{ beforeUs: number | undefined, limit: number, agentId?: number, clientNumber?: string }} query
	 * @returns {LiveCallRecord[]}
	 */
	listCalls({ beforeUs, limit, agentId, clientNumber }) {
		/** @type {NewestFirst<LiveCallRecord>} */
		const empty = new NewestFirst();
		const byAgent = agentId === undefined ? undefined : (this.callsByAgent.get(agentId) ?? empty);
		const byClient =
			clientNumber === undefined ? undefined : (this.callsByClient.get(clientNumber) ?? empty);
		if (byAgent && byClient) {
			return byAgent.items.length <= byClient.items.length
				? byAgent.page(beforeUs, limit, (call) => call.row.client_number === clientNumber)
				: byClient.page(beforeUs, limit, (call) => call.row.agent_id === agentId);
		}
		return (byAgent ?? byClient ?? this.callList).page(beforeUs, limit);
	}
}

module.exports = { LiveAccount };
