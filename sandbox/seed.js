'use strict';

const { newAgent, newCall, endCall } = require('./records');
const { SEED_MODELS, AREA_CODES, AGENT_TEMPLATES, GENERIC_CONTEXTS } = require('./seedTemplates');

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */
/** @typedef {import('./store').Account} Account */
/** @typedef {import('./random').Random} Random */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Seeded calls fall within this many days before the seed request. */
const CALL_HISTORY_DAYS = 30;
/** Share of seeded calls that failed. */
const FAILED_SHARE = 0.12;

/**
 * A pool of customer numbers, reused across calls so the client_number filter finds several calls.
 * @param {Random} random
 * @param {number} size
 * @returns {string[]}
 */
function clientNumbers(random, size) {
	const numbers = new Set();
	while (numbers.size < size) {
		const kind = random.int(0, 5);
		if (kind === 0) numbers.add(`+447${random.digits(9)}`);
		else if (kind === 1) numbers.add(`+49151${random.digits(8)}`);
		else numbers.add(`+1${random.pick(AREA_CODES)}${random.digits(7)}`);
	}
	return [...numbers];
}

/**
 * @param {Account} account
 * @param {string} base
 * @returns {string} `base`, or `base 2`, `base 3`... whichever no agent of the account has
 */
function freeName(account, base) {
	let name = base;
	for (let n = 2; account.agentsByName.has(name); n++) name = `${base} ${n}`;
	return name;
}

/**
 * @param {Agent} agent
 * @returns {string[]}
 */
function contextsFor(agent) {
	return (
		AGENT_TEMPLATES.find((template) => agent.name.startsWith(template.name))?.contexts ??
		GENERIC_CONTEXTS
	);
}

/**
 * @typedef {object} SeedCounts
 * @property {number} agents agents to create
 * @property {number} calls ended calls to create, spread over the last CALL_HISTORY_DAYS days
 * @property {number} liveCalls calls in progress to create, starting at the moment of seeding
 * @property {number} [callsPerSecond] the ended calls follow each other this many a second instead (created
 *   1/callsPerSecond s apart, the last ten minutes before seeding), so several share one second
 */

/** @typedef {{ agents_created: number, calls_created: number, live_calls_created: number }} SeedSummary */

/**
 * A call of `agent` to one of `clients` with one of the agent's contexts, its id reserved in the account.
 * @param {Account} account
 * @param {Agent} agent
 * @param {string[]} clients
 * @param {Random} random
 * @param {number} startMs
 * @returns {Call}
 */
function seededCall(account, agent, clients, random, startMs) {
	const call = newCall(
		account,
		{
			agent,
			to: random.pick(clients),
			context: random.pick(contextsFor(agent)),
			userSpeaksFirst: random.next() < 0.2,
		},
		random,
		startMs,
	);
	account.calls.set(call.id, call); // reserve the id: uniqueId checks account.calls
	return call;
}

/**
 * Adds agents, ended calls and calls in progress to an account. The data depends only on the random stream
 * and the account's existing agents; times are offsets from `nowMs`. Calls are spread over all agents of
 * the account; one agent is created first if the account has none. The caller starts the live calls.
 * @param {Account} account
 * @param {SeedCounts} counts
 * @param {Random} random
 * @param {number} nowMs
 * @param {() => string} [endStatus] the status of the next ended call that did not fail (default completed)
 * @returns {{ summary: SeedSummary, liveCalls: Call[] }}
 */
function seedAccount(account, counts, random, nowMs, endStatus = () => 'completed') {
	const callCount = counts.calls + counts.liveCalls;
	const agentsToCreate =
		callCount > 0 && counts.agents === 0 && account.agents.size === 0 ? 1 : counts.agents;
	for (let i = 0; i < agentsToCreate; i++) {
		const index = account.agents.size;
		const template = AGENT_TEMPLATES[index % AGENT_TEMPLATES.length];
		const agent = newAgent(
			account,
			{
				name: freeName(account, template.name),
				areaCode: random.pick(AREA_CODES),
				settings: {
					...structuredClone(template.settings),
					llm_model: SEED_MODELS[index % SEED_MODELS.length],
				},
			},
			random,
			// Agents exist a while before their calls: 45 days back, an hour or so apart.
			nowMs - 45 * DAY_MS + i * HOUR_MS + random.int(0, 59) * 60_000,
		);
		account.addAgent(agent);
	}

	const agents = [...account.agents.values()];
	const clients =
		callCount > 0 ? clientNumbers(random, Math.min(40, Math.max(3, Math.ceil(callCount / 3)))) : [];
	/** @type {Call[]} */
	const endedCalls = [];
	const burst = counts.callsPerSecond;
	const burstStartMs = burst
		? nowMs - 600_000 - Math.floor(((counts.calls - 1) * 1000) / burst)
		: 0;
	for (let i = 0; i < counts.calls; i++) {
		const agent = random.pick(agents);
		const earliest = Math.max(agent.created_ms + 1, nowMs - CALL_HISTORY_DAYS * DAY_MS);
		const startMs = burst
			? burstStartMs + Math.floor((i * 1000) / burst)
			: earliest + Math.floor(random.next() * Math.max(1, nowMs - earliest - 600_000));
		const call = seededCall(account, agent, clients, random, startMs);
		const failed = random.next() < FAILED_SHARE;
		const endMs = failed ? startMs : Math.min(nowMs, startMs + random.int(20, 600) * 1000);
		endCall(call, failed ? 'failed' : endStatus(), agent, endMs);
		endedCalls.push(call);
	}
	/** @type {Call[]} */
	const liveCalls = [];
	for (let i = 0; i < counts.liveCalls; i++) {
		liveCalls.push(seededCall(account, random.pick(agents), clients, random, nowMs));
	}
	account.addCalls([...endedCalls, ...liveCalls]);
	return {
		summary: {
			agents_created: agentsToCreate,
			calls_created: counts.calls,
			live_calls_created: counts.liveCalls,
		},
		liveCalls,
	};
}

module.exports = { seedAccount, clientNumbers };
