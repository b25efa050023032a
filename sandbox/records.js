'use strict';

const { defaultAgentSettings } = require('./agentValidation');
const { buildTranscript } = require('./transcript');

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').AgentSettings} AgentSettings */
/** @typedef {import('./types').Call} Call */
/** @typedef {import('./store').Account} Account */
/** @typedef {import('./random').Random} Random */

/**
 * Timestamps are ISO 8601 in UTC with milliseconds, e.g. 2026-11-22T10:15:30.123Z (docs/service.md,
 * "Base URL and transport").
 * @param {number} ms
 * @returns {string}
 */
function isoTime(ms) {
	return new Date(ms).toISOString();
}

/**
 * @param {string} prefix
 * @param {Random} random
 * @param {Map<string, unknown>} taken
 * @returns {string}
 */
function uniqueId(prefix, random, taken) {
	for (;;) {
		const id = random.id(prefix);
		if (!taken.has(id)) return id;
	}
}

/**
 * A new agent with the defaults for every setting not given and a fresh phone number in its area code.
 * @param {Account} account
 * @param {{ name: string, areaCode: string, settings: Partial<AgentSettings> }} input
 * @param {Random} random
 * @param {number} nowMs
 * @returns {Agent}
 */
function newAgent(account, { name, areaCode, settings }, random, nowMs) {
	return {
		id: uniqueId('agt', random, account.agents),
		name,
		phone_number: account.allocatePhoneNumber(areaCode, () => random.digits(7)),
		...defaultAgentSettings(),
		...settings,
		created_at: isoTime(nowMs),
		updated_at: isoTime(nowMs),
		created_ms: nowMs,
	};
}

/**
 * A call that has just started.
 * @param {Account} account
 * @param {{ agent: Agent, to: string, context: string, userSpeaksFirst: boolean }} input
 * @param {Random} random
 * @param {number} nowMs
 * @returns {Call}
 */
function newCall(account, { agent, to, context, userSpeaksFirst }, random, nowMs) {
	return {
		id: uniqueId('call', random, account.calls),
		agent_id: agent.id,
		from: agent.phone_number,
		to,
		context,
		contexts: [context],
		user_speaks_first: userSpeaksFirst,
		status: 'in_progress',
		created_at: isoTime(nowMs),
		updated_at: isoTime(nowMs),
		ended_at: null,
		duration: null,
		transcript: [],
		created_ms: nowMs,
	};
}

/**
 * Ends a call. A completed call gets a transcript and its duration; a call that ends with any other status
 * (failed, busy, no-answer, ...) never connected, so it has an empty transcript and a duration of 0.
 * @param {Call} call
 * @param {string} status anything but in_progress
 * @param {Agent | undefined} agent undefined when the agent was deleted meanwhile
 * @param {number} endMs
 */
function endCall(call, status, agent, endMs) {
	call.status = status;
	call.ended_at = isoTime(endMs);
	if (status !== 'completed') {
		call.duration = 0;
		call.transcript = [];
		return;
	}
	call.duration = Math.max(0, endMs - call.created_ms) / 1000;
	call.transcript = buildTranscript({
		agentName: agent?.name ?? 'your voice agent',
		initialMessage: agent?.initial_message ?? '',
		contexts: call.contexts,
		userSpeaksFirst: call.user_speaks_first,
	});
}

module.exports = { isoTime, uniqueId, newAgent, newCall, endCall };
