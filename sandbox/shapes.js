'use strict';

// The shapes the API answers with (spec part 2). Stored objects carry internal fields (created_ms,
// contexts, user_speaks_first) that must not leak, so every answer is built field by field here.

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */

/**
 * POST /agent and GET /agent.
 * @param {Agent} agent
 */
function agentShape(agent) {
	return {
		id: agent.id,
		name: agent.name,
		phone_number: agent.phone_number,
		system_prompt: agent.system_prompt,
		initial_message: agent.initial_message,
		llm_model: agent.llm_model,
		voice_id: agent.voice_id,
		webhook: agent.webhook,
		tools: agent.tools,
		filler_words: agent.filler_words,
		filler_words_whitelist: agent.filler_words_whitelist,
		actions: agent.actions,
		voicemail_number: agent.voicemail_number,
		chunking: agent.chunking,
		endpointing: agent.endpointing,
		voice_optimization: agent.voice_optimization,
		smart_endpointing_threshold: agent.smart_endpointing_threshold,
		language: agent.language,
		compliance_checks: agent.compliance_checks,
		created_at: agent.created_at,
		updated_at: agent.updated_at,
	};
}

/**
 * An item of GET /agents.
 * @param {Agent} agent
 */
function agentListShape(agent) {
	return {
		id: agent.id,
		name: agent.name,
		phone_number: agent.phone_number,
		system_prompt: agent.system_prompt,
		initial_message: agent.initial_message,
		llm_model: agent.llm_model,
		voice_id: agent.voice_id,
		webhook: agent.webhook,
		tools: agent.tools,
		filler_words: agent.filler_words,
		filler_words_whitelist: agent.filler_words_whitelist,
		created_at: agent.created_at,
		updated_at: agent.updated_at,
	};
}

/**
 * GET /call, POST /call, and the `data` of call_started / call_ended events.
 * @param {Call} call
 */
function callShape(call) {
	return {
		id: call.id,
		agent_id: call.agent_id,
		from: call.from,
		to: call.to,
		context: call.context,
		status: call.status,
		created_at: call.created_at,
		ended_at: call.ended_at,
		duration: call.duration,
		transcript: call.transcript,
	};
}

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

/**
 * POST /call/context.
 * @param {Call} call
 */
function callContextShape(call) {
	return {
		id: call.id,
		agent_id: call.agent_id,
		from: call.from,
		to: call.to,
		context: call.context,
		status: call.status,
		created_at: call.created_at,
		updated_at: call.updated_at,
	};
}

module.exports = { agentShape, agentListShape, callShape, callListShape, callContextShape };
