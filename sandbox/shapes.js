'use strict';

// The shapes the API answers with (docs/service.md, "Agent answers" and "Calls"). Stored objects carry
// internal fields (created_ms, contexts, user_speaks_first) that must not leak, so every answer copies
// only the fields its shape lists, in the order the interface lists them.

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */

/** What every agent shape starts with. */
const AGENT_BASICS = /** @type {const} */ ([
	'id',
	'name',
	'phone_number',
	'system_prompt',
	'initial_message',
	'llm_model',
	'voice_id',
	'webhook',
	'tools',
	'filler_words',
	'filler_words_whitelist',
]);

/** An agent in GET /agents. */
const AGENT_LIST_FIELDS = /** @type {const} */ ([...AGENT_BASICS, 'created_at', 'updated_at']);

/** An agent in POST /agent and GET /agent: the basics, the rest of its settings, then the timestamps. */
const AGENT_FIELDS = /** @type {const} */ ([
	...AGENT_BASICS,
	'actions',
	'voicemail_number',
	'chunking',
	'endpointing',
	'voice_optimization',
	'smart_endpointing_threshold',
	'language',
	'compliance_checks',
	'created_at',
	'updated_at',
]);

/** A call in GET /call, POST /call and the `data` of call_started / call_ended events. */
const CALL_FIELDS = /** @type {const} */ ([
	'id',
	'agent_id',
	'from',
	'to',
	'context',
	'status',
	'created_at',
	'ended_at',
	'duration',
	'transcript',
]);

/** A call in POST /call/context. */
const CALL_CONTEXT_FIELDS = /** @type {const} */ ([
	'id',
	'agent_id',
	'from',
	'to',
	'context',
	'status',
	'created_at',
	'updated_at',
]);

/**
 * A copy of `record` with only `fields`.
 * @template {object} T
 * @template {keyof T} K
 * @param {T} record
 * @param {readonly K[]} fields
 * @returns {Pick<T, K>}
 */
function pick(record, fields) {
	const shape = /** @type {Pick<T, K>} */ ({});
	for (const field of fields) shape[field] = record[field];
	return shape;
}

/** @param {Agent} agent */
const agentShape = (agent) => pick(agent, AGENT_FIELDS);

/** @param {Agent} agent */
const agentListShape = (agent) => pick(agent, AGENT_LIST_FIELDS);

/** @param {Call} call */
const callShape = (call) => pick(call, CALL_FIELDS);

/**
 * An item of GET /calls; `client_number` is the customer's number, the `to` of the call.
 * @param {Call} call
 */
function callListShape(call) {
	return {
		id: call.id,
		agent_id: call.agent_id,
		client_number: call.to,
		context: call.context,
		status: call.status,
		created_at: call.created_at,
	};
}

/** @param {Call} call */
const callContextShape = (call) => pick(call, CALL_CONTEXT_FIELDS);

module.exports = { agentShape, agentListShape, callShape, callListShape, callContextShape };
