'use strict';

const { SortedIndex } = require('./keyset');

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */
/** @typedef {import('./keyset').SortKey} SortKey */

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

module.exports = { Store, Account };
