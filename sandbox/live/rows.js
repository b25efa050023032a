'use strict';

// The rows of the live profile and how a call's row changes over its life:
//
//   placed (ringing): in_progress false, client_number "", started_at and ended_at the zero time, transcript null
//   connected:        in_progress true, client_number the number called, started_at set
//   ended:            in_progress false, ended_at, time_seconds, sentiment, average_latency_ms, recording_sid,
//                     disconnect_reason and the whole transcript
//
// A call that never connects stays as placed, for ever.

const { ZERO_TIME, rfc3339 } = require('./time');
const { liveTranscript } = require('./transcript');

/** @typedef {import('./types').LiveAgent} LiveAgent */
/** @typedef {import('./types').LiveAgentSettings} LiveAgentSettings */
/** @typedef {import('./types').LiveAgentRecord} LiveAgentRecord */
/** @typedef {import('./types').LiveCallRecord} LiveCallRecord */
/** @typedef {import('./types').LiveCall} LiveCall */
/** @typedef {import('../random').Random} Random */

/**
 * What an upsert writes for every setting it was not sent: Go's zero values (nil slices are `null`).
 * @returns {LiveAgentSettings}
 */
function zeroSettings() {
	return {
		system_prompt: '',
		initial_message: '',
		llm_model: '',
		voice_id: '',
		webhook: '',
		tools: null,
		filler_words: false,
		filler_words_whitelist: null,
		actions: null,
		voicemail_number: '',
		chunking: false,
		endpointing: 0,
		voice_optimization: 0,
		smart_endpointing_threshold: 0,
		language: '',
		compliance_checks: null,
	};
}

/**
 * A Twilio-style sid: two letters and 32 hex digits.
 * @param {Random} random
 * @param {string} prefix
 * @returns {string}
 */
function sid(random, prefix) {
	let hex = '';
	for (let i = 0; i < 32; i++) hex += random.int(0, 15).toString(16);
	return `${prefix}${hex}`;
}

/**
 * @param {{ id: number, userId: number, name: string, phoneNumber: string, settings: Partial<LiveAgentSettings>, createdUs: number }} input
 * @returns {LiveAgentRecord}
 */
function newLiveAgent({ id, userId, name, phoneNumber, settings, createdUs }) {
	const time = rfc3339(createdUs);
	return {
		row: {
			id,
			created_at: time,
			updated_at: time,
			deleted_at: null,
			user_id: userId,
			name,
			phone_number: phoneNumber,
			...zeroSettings(),
			...settings,
		},
		createdUs,
	};
}

/**
 * An upsert of an existing agent: every setting is replaced, those not sent by their zero values.
 * @param {LiveAgentRecord} record
 * @param {Partial<LiveAgentSettings>} settings
 * @param {number} nowUs
 */
function replaceLiveAgent(record, settings, nowUs) {
	Object.assign(record.row, zeroSettings(), settings, { updated_at: rfc3339(nowUs) });
}

/**
 * A call just placed: ringing.
 * @param {{ id: number, userId: number, agent: LiveAgent, to: string, context: string, userSpeaksFirst: boolean, twilioSid: string, createdUs: number }} input
 * @returns {LiveCallRecord}
 */
function newLiveCall({ id, userId, agent, to, context, userSpeaksFirst, twilioSid, createdUs }) {
	const time = rfc3339(createdUs);
	return {
		row: {
			id,
			created_at: time,
			updated_at: time,
			deleted_at: null,
			user_id: userId,
			agent_id: agent.id,
			twilio_sid: twilioSid,
			recording_sid: '',
			client_number: '',
			context,
			in_progress: false,
			started_at: ZERO_TIME,
			ended_at: ZERO_TIME,
			time_seconds: 0,
			sentiment: 0,
			average_latency_ms: 0,
			user_speaks_first: userSpeaksFirst,
			disconnect_reason: '',
			transcript: null,
		},
		createdUs,
		startedUs: 0,
		to,
		contexts: [context],
		state: 'ringing',
		script: { systemPrompt: agent.system_prompt, initialMessage: agent.initial_message },
	};
}

/**
 * The callee answered: the call is in progress.
 * @param {LiveCallRecord} record
 * @param {LiveAgent | undefined} agent undefined when it was deleted meanwhile
 * @param {number} nowUs
 */
function connectLiveCall(record, agent, nowUs) {
	record.state = 'connected';
	record.startedUs = nowUs;
	if (agent)
		record.script = { systemPrompt: agent.system_prompt, initialMessage: agent.initial_message };
	Object.assign(record.row, {
		in_progress: true,
		client_number: record.to,
		started_at: rfc3339(nowUs),
		updated_at: rfc3339(nowUs),
	});
}

/**
 * The call ended; the transcript is saved now, all at once.
 * @param {LiveCallRecord} record a connected call
 * @param {{ nowUs: number, reason: LiveCall['disconnect_reason'], random: Random }} end
 */
function endLiveCall(record, { nowUs, reason, random }) {
	record.state = 'ended';
	const time = rfc3339(nowUs);
	Object.assign(record.row, {
		in_progress: false,
		ended_at: time,
		updated_at: time,
		time_seconds: Math.max(0, nowUs - record.startedUs) / 1_000_000,
		sentiment: random.int(1, 10),
		average_latency_ms: random.int(400, 1600) + random.int(0, 9) / 10,
		recording_sid: sid(random, 'RE'),
		disconnect_reason: reason,
		transcript: liveTranscript({
			...record.script,
			contexts: record.contexts,
			userSpeaksFirst: record.row.user_speaks_first,
		}),
	});
}

/**
 * POST /call/context: the call's context is replaced, whatever state the call is in.
 * @param {LiveCallRecord} record
 * @param {string} context
 * @param {number} nowUs
 */
function setLiveContext(record, context, nowUs) {
	record.row.context = context;
	record.row.updated_at = rfc3339(nowUs);
	record.contexts.push(context);
}

module.exports = {
	zeroSettings,
	sid,
	newLiveAgent,
	replaceLiveAgent,
	newLiveCall,
	connectLiveCall,
	endLiveCall,
	setLiveContext,
};
