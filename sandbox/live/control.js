'use strict';

// The control endpoints of one call of a live key: POST /_sandbox/calls/{id}/events, /complete, /connect and
// /freeze. They answer as every control endpoint does (JSON), with the call row as it is afterwards.

const { ApiError } = require('../errors');
const { invalid, isObject } = require('../checks');
const { integerBounds } = require('../options');
const { firstToolOf } = require('../simulation');
const { toolCall, actionCall } = require('./calls');
const { LIVE_EVENTS } = require('./settings');

/** @typedef {import('../api').Reply} Reply */
/** @typedef {import('./service').LiveService} LiveService */
/** @typedef {import('./account').LiveAccount} LiveAccount */
/** @typedef {import('./types').LiveCallRecord} LiveCallRecord */
/** @typedef {import('./types').LiveCall} LiveCall */
/** @typedef {import('./types').LiveEventName} LiveEventName */

const REASONS = ['user_hangup', 'agent_hangup', 'forward'];

/**
 * @param {unknown} body
 * @returns {Reply}
 */
const ok = (body) => ({ status: 200, body });

/**
 * @param {LiveService} service
 * @param {{ account: LiveAccount, call: LiveCallRecord }} found
 * @param {string} action events, complete, connect or freeze
 * @param {Record<string, unknown>} fields the request body
 * @returns {Promise<Reply>}
 */
async function liveCallControl(service, { account, call }, action, fields) {
	const id = call.row.id;
	switch (action) {
		case 'events':
			return sendLiveEvent(service, account, call, fields);
		case 'complete': {
			if (fields.status !== undefined)
				invalid('A live call has no status: give disconnect_reason, or nothing');
			const reason = fields.disconnect_reason ?? 'user_hangup';
			if (typeof reason !== 'string' || !REASONS.includes(reason))
				invalid(`disconnect_reason must be one of: ${REASONS.join(', ')}`);
			if (call.state === 'ended') throw new ApiError(409, `Call ${id} has already ended`);
			service.calls.finish(account, call, /** @type {LiveCall['disconnect_reason']} */ (reason));
			return ok(call.row);
		}
		case 'connect': {
			const durationMs = fields.call_duration_ms ?? service.callDurationMs;
			const { min, max } = integerBounds('callDurationMs');
			if (!Number.isInteger(durationMs) || Number(durationMs) < min || Number(durationMs) > max)
				invalid(`call_duration_ms must be an integer from ${min} to ${max}`);
			if (call.state !== 'ringing') throw new ApiError(409, `Call ${id} is not ringing`);
			service.calls.connect(account, call, Number(durationMs));
			return ok(call.row);
		}
		default: {
			if (call.state === 'ended') throw new ApiError(409, `Call ${id} has already ended`);
			service.calls.freeze(call);
			return ok(call.row);
		}
	}
}

/**
 * POST /_sandbox/calls/{id}/events {event, data?}: one event now (no event_delay_ms), with the call as it
 * is; answers after the first attempt. `data` defaults, for tool_call, to a call of the agent's first
 * function tool, and for action, to its first action.
 * @param {LiveService} service
 * @param {LiveAccount} account
 * @param {LiveCallRecord} call
 * @param {Record<string, unknown>} fields
 * @returns {Promise<Reply>}
 */
async function sendLiveEvent(service, account, call, fields) {
	const event = fields.event;
	if (typeof event !== 'string' || !LIVE_EVENTS.includes(event))
		invalid(`event must be one of: ${LIVE_EVENTS.join(', ')}`);
	if (fields.data !== undefined && !isObject(fields.data) && !Array.isArray(fields.data))
		invalid('data must be an object or an array');
	const agent = service.calls.agentOf(account, call);
	let data = fields.data;
	if (data === undefined && event === 'tool_call') {
		const tool = toolCall(service.random, firstToolOf(agent?.tools));
		if (!tool) invalid('data is required for tool_call: the agent has no function tool');
		data = [tool];
	}
	if (data === undefined && event === 'action') {
		data = actionCall(service.random, agent?.actions);
		if (!data) invalid('data is required for action: the agent has no action');
	}
	const sent = await service.calls.emit(
		account,
		call,
		/** @type {LiveEventName} */ (event),
		data,
		0,
	);
	if (!sent) throw new ApiError(409, `The agent of call ${call.row.id} has no webhook`);
	return ok({ event, call_id: call.row.id, url: sent.url, status: sent.result?.status ?? null });
}

module.exports = { liveCallControl };
