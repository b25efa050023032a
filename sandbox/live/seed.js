'use strict';

// Seed data of a live account: the same businesses as the documented seed (seedTemplates.js), written as
// live rows. Ended calls lie in the last 30 days, or, with `callsPerSecond`, follow each other that many a
// second (several in one second: what a list of leads placed in a burst looks like); some were never
// answered and ring for ever. Calls in progress are created now; the caller connects them.

const { newLiveAgent, newLiveCall, connectLiveCall, endLiveCall, sid } = require('./rows');
const { SEED_MODELS, AGENT_TEMPLATES, GENERIC_CONTEXTS } = require('../seedTemplates');
const { clientNumbers } = require('../seed');

/** @typedef {import('../random').Random} Random */
/** @typedef {import('../seed').SeedCounts} SeedCounts */
/** @typedef {import('../seed').SeedSummary} SeedSummary */
/** @typedef {import('./account').LiveAccount} LiveAccount */
/** @typedef {import('./types').LiveAgentRecord} LiveAgentRecord */
/** @typedef {import('./types').LiveCallRecord} LiveCallRecord */
/** @typedef {import('./types').LiveCall} LiveCall */

const SECOND_US = 1_000_000;
const HOUR_US = 3600 * SECOND_US;
const DAY_US = 24 * HOUR_US;
const CALL_HISTORY_DAYS = 30;
/** Share of seeded calls never answered (ringing for ever). */
const NEVER_ANSWERED_SHARE = 0.12;
/** @type {LiveCall['disconnect_reason'][]} */
const REASONS = ['user_hangup', 'user_hangup', 'agent_hangup', 'forward'];

/**
 * @typedef {object} LiveSeedSource where seeded rows take their ids, numbers and randomness from
 * @property {Random} random
 * @property {() => number} agentId the next agent id of the service
 * @property {() => number} callId the next call id of the service
 * @property {() => string} buyNumber a phone number no agent of the service has
 * @property {number} nowUs
 */

/**
 * @param {LiveAccount} account
 * @param {string} base
 */
function freeName(account, base) {
	let name = base;
	for (let n = 2; account.agentsByName.has(name); n++) name = `${base} ${n}`;
	return name;
}

/**
 * @param {LiveAccount} account
 * @param {number} count
 * @param {LiveSeedSource} source
 */
function seedAgents(account, count, { random, agentId, buyNumber, nowUs }) {
	for (let i = 0; i < count; i++) {
		const index = account.agents.size;
		const template = AGENT_TEMPLATES[index % AGENT_TEMPLATES.length];
		const agent = newLiveAgent({
			id: agentId(),
			userId: account.userId,
			name: freeName(account, template.name),
			phoneNumber: buyNumber(),
			settings: {
				...structuredClone(template.settings),
				llm_model: SEED_MODELS[index % SEED_MODELS.length],
			},
			createdUs: nowUs - 45 * DAY_US + i * HOUR_US + random.int(0, 59) * 60 * SECOND_US,
		});
		account.addAgent(agent);
	}
}

/**
 * When each of `count` ended calls was created: spread over the last days, or a burst of `perSecond` a
 * second that ended ten minutes ago.
 * @param {number} count
 * @param {number | undefined} perSecond
 * @param {number} earliestUs
 * @param {LiveSeedSource} source
 * @returns {number[]} oldest first
 */
function creationTimes(count, perSecond, earliestUs, { random, nowUs }) {
	const latestUs = nowUs - 600 * SECOND_US;
	if (perSecond) {
		const spacingUs = SECOND_US / perSecond;
		const firstUs = latestUs - Math.round((count - 1) * spacingUs);
		return Array.from({ length: count }, (_, i) => firstUs + Math.round(i * spacingUs));
	}
	const spanUs = Math.max(1, latestUs - earliestUs);
	return Array.from({ length: count }, () => earliestUs + Math.floor(random.next() * spanUs)).sort(
		(a, b) => a - b,
	);
}

/**
 * Adds agents, ended calls and calls in progress to a live account. Ids are the service's next ones, given
 * in the order the calls were created. Calls are spread over all agents; one is created if there is none.
 * @param {LiveAccount} account
 * @param {SeedCounts} counts
 * @param {LiveSeedSource} source
 * @returns {{ summary: SeedSummary, liveCalls: LiveCallRecord[] }}
 */
function seedLiveAccount(account, counts, source) {
	const { random, callId, nowUs } = source;
	const callCount = counts.calls + counts.liveCalls;
	const agentsToCreate =
		callCount > 0 && counts.agents === 0 && account.agents.size === 0 ? 1 : counts.agents;
	seedAgents(account, agentsToCreate, source);

	const agents = [...account.agents.values()];
	const clients =
		callCount > 0 ? clientNumbers(random, Math.min(40, Math.max(3, Math.ceil(callCount / 3)))) : [];
	const earliestUs = Math.max(
		...agents.map((agent) => agent.createdUs + 1),
		nowUs - CALL_HISTORY_DAYS * DAY_US,
	);
	/** @param {LiveAgentRecord} agent @param {number} createdUs */
	const call = (agent, createdUs) =>
		newLiveCall({
			id: callId(),
			userId: account.userId,
			agent: agent.row,
			to: random.pick(clients),
			context: random.pick(
				AGENT_TEMPLATES.find((template) => agent.row.name.startsWith(template.name))?.contexts ??
					GENERIC_CONTEXTS,
			),
			userSpeaksFirst: random.next() < 0.2,
			twilioSid: sid(random, 'CA'),
			createdUs,
		});

	/** @type {LiveCallRecord[]} */
	const ended = [];
	for (const createdUs of creationTimes(counts.calls, counts.callsPerSecond, earliestUs, source)) {
		const agent = random.pick(agents);
		const record = call(agent, createdUs);
		ended.push(record);
		if (random.next() < NEVER_ANSWERED_SHARE) continue;
		const startedUs = createdUs + random.int(2, 9) * SECOND_US;
		connectLiveCall(record, agent.row, startedUs);
		const endUs = Math.min(nowUs, startedUs + random.int(20, 600) * SECOND_US);
		endLiveCall(record, {
			nowUs: Math.max(endUs, startedUs),
			reason: random.pick(REASONS),
			random,
		});
	}
	/** @type {LiveCallRecord[]} */
	const liveCalls = [];
	for (let i = 0; i < counts.liveCalls; i++) liveCalls.push(call(random.pick(agents), nowUs));
	account.addCalls([...ended, ...liveCalls]);
	return {
		summary: {
			agents_created: agentsToCreate,
			calls_created: counts.calls,
			live_calls_created: counts.liveCalls,
		},
		liveCalls,
	};
}

module.exports = { seedLiveAccount };
