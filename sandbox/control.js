'use strict';

const { ApiError } = require('./errors');
const { callShape } = require('./shapes');
const { firstTool } = require('./simulation');
const { invalid, isObject, given } = require('./checks');
const { integerBounds } = require('./options');
const { END_STATUS } = require('./variants');
const { liveCallControl } = require('./live/control');

/** @typedef {import('./app').SandboxApp} SandboxApp */
/** @typedef {import('./api').Reply} Reply */
/** @typedef {import('./httpMessages').RequestBody} RequestBody */
/** @typedef {import('./webhooks').WebhookEvent} WebhookEvent */
/** @typedef {import('./options').IntegerOptionName} IntegerOptionName */

const EVENT_TYPES = ['call_started', 'call_ended', 'tool_call'];
const CALL_ACTION = /^\/_sandbox\/calls\/([^/]+)\/(events|complete|connect|freeze)$/;
/** Most calls a second seeding places (`calls_per_second`). */
const MAX_CALLS_PER_SECOND = 100_000;

/**
 * @param {unknown} body
 * @returns {Reply}
 */
const ok = (body) => ({ status: 200, body });

/**
 * The control endpoints under /_sandbox: no auth, not recorded, never faulted.
 * @param {SandboxApp} app
 * @param {string} method
 * @param {string} path
 * @param {RequestBody} body
 * @returns {Promise<Reply>}
 */
async function handleControl(app, method, path, body) {
	if (body.problem) throw body.problem;
	const fields = body.json ?? {};
	if (!isObject(fields)) invalid('The request body must be a JSON object');

	switch (`${method} ${path}`) {
		case 'POST /_sandbox/reset':
			app.reset();
			return ok({ reset: true });
		case 'POST /_sandbox/seed':
			return ok(seed(app, fields));
		case 'GET /_sandbox/variants':
			return ok(app.variants.describe());
		case 'POST /_sandbox/variants':
			app.variants.configure(fields);
			return ok(app.variants.describe());
		case 'GET /_sandbox/faults':
			return ok(app.faults.describe());
		case 'POST /_sandbox/faults':
			app.faults.configure(fields);
			app.rateLimits.clear();
			return ok(app.faults.describe());
		case 'GET /_sandbox/requests':
			return ok(app.requestLog.entries);
		case 'DELETE /_sandbox/requests':
			app.requestLog.clear();
			return ok({ cleared: true });
		case 'GET /_sandbox/traffic':
			return ok(app.traffic.describe());
		case 'DELETE /_sandbox/traffic':
			app.traffic.clear();
			return ok({ cleared: true });
		case 'GET /_sandbox/call-load':
			return ok(app.callLoad.describe(app.apiKeys));
		case 'DELETE /_sandbox/call-load':
			app.callLoad.clear();
			return ok({ cleared: true });
		case 'GET /_sandbox/profiles':
			return ok(app.profiles.describe());
		case 'GET /_sandbox/live':
			return ok(app.live.switches.describe());
		case 'POST /_sandbox/live':
			app.live.switches.configure(fields);
			return ok(app.live.switches.describe());
		case 'GET /_sandbox/deliveries':
			return ok(app.deliveryLog.entries);
		case 'DELETE /_sandbox/deliveries':
			app.deliveryLog.clear();
			return ok({ cleared: true });
	}

	const callAction = method === 'POST' ? CALL_ACTION.exec(path) : null;
	if (callAction) {
		const callId = decodeURIComponent(callAction[1]);
		const live = app.live.findCall(callId);
		if (live) return liveCallControl(app.live, live, callAction[2], fields);
		if (callAction[2] === 'events') return sendEvent(app, callId, fields);
		if (callAction[2] === 'complete') return completeCall(app, callId, fields);
		findCall(app, callId);
		invalid(
			`${callAction[2]} is for calls of live keys: a documented call is in progress until it ends`,
		);
	}
	throw new ApiError(404, `No such control endpoint: ${method} ${path}`);
}

/**
 * An integer of the seed body, within the bounds of the start-up option of the same meaning.
 * @param {Record<string, unknown>} fields
 * @param {string} field
 * @param {IntegerOptionName} option
 * @returns {number | undefined} undefined when not given (null counts as not given)
 */
function seedInteger(fields, field, option) {
	const value = fields[field];
	if (!given(value)) return undefined;
	const { min, max } = integerBounds(option);
	if (!Number.isInteger(value) || Number(value) < min || Number(value) > max) {
		invalid(`${field} must be an integer from ${min} to ${max}`);
	}
	return Number(value);
}

/**
 * POST /_sandbox/seed {agents, calls, live_calls, call_duration_ms, calls_per_second, api_key}.
 * @param {SandboxApp} app
 * @param {Record<string, unknown>} fields
 */
function seed(app, fields) {
	const perSecond = fields.calls_per_second;
	if (
		given(perSecond) &&
		(!Number.isInteger(perSecond) ||
			Number(perSecond) < 1 ||
			Number(perSecond) > MAX_CALLS_PER_SECOND)
	)
		invalid(`calls_per_second must be an integer from 1 to ${MAX_CALLS_PER_SECOND}`);
	const counts = {
		agents: seedInteger(fields, 'agents', 'agents') ?? 0,
		calls: seedInteger(fields, 'calls', 'calls') ?? 0,
		liveCalls: seedInteger(fields, 'live_calls', 'liveCalls') ?? 0,
		callsPerSecond: given(perSecond) ? Number(perSecond) : undefined,
	};
	const callDurationMs = seedInteger(fields, 'call_duration_ms', 'callDurationMs');
	const apiKey = fields.api_key ?? app.apiKeys[0];
	if (typeof apiKey !== 'string' || !app.profiles.of(apiKey))
		invalid('api_key must be one of the API keys the sandbox was started with');
	return app.seed(apiKey, counts, callDurationMs);
}

/**
 * @param {SandboxApp} app
 * @param {string} callId
 */
function findCall(app, callId) {
	const found = app.store.findCall(callId);
	if (!found) throw new ApiError(404, `Call ${callId} not found`);
	return found;
}

/**
 * POST /_sandbox/calls/{id}/events {event_type, data?}: one event now; answers after the first attempt.
 * @param {SandboxApp} app
 * @param {string} callId
 * @param {Record<string, unknown>} fields
 * @returns {Promise<Reply>}
 */
async function sendEvent(app, callId, fields) {
	const { account, call } = findCall(app, callId);
	const eventType = fields.event_type;
	if (typeof eventType !== 'string' || !EVENT_TYPES.includes(eventType)) {
		invalid(`event_type must be one of: ${EVENT_TYPES.join(', ')}`);
	}
	if (fields.data !== undefined && !isObject(fields.data)) invalid('data must be an object');
	const data =
		fields.data ??
		(eventType === 'tool_call' ? firstTool(account.agents.get(call.agent_id)) : callShape(call));
	if (data === undefined)
		invalid('data is required for tool_call: the agent has no function tool to take it from');
	const sent = await app.simulation.emit(
		account,
		call,
		/** @type {WebhookEvent['event_type']} */ (eventType),
		data,
	);
	if (!sent) throw new ApiError(409, `The agent of call ${callId} has no webhook`);
	return ok({ event_type: eventType, call_id: call.id, url: sent.url, status: sent.result.status });
}

/**
 * POST /_sandbox/calls/{id}/complete {status?}: ends a call in progress now, as `completed` or with any other
 * end status (`failed`, `busy`, `no-answer`, ...: the contract does not publish the set).
 * @param {SandboxApp} app
 * @param {string} callId
 * @param {Record<string, unknown>} fields
 * @returns {Reply}
 */
function completeCall(app, callId, fields) {
	const { account, call } = findCall(app, callId);
	const status = fields.status ?? 'completed';
	if (typeof status !== 'string' || !END_STATUS.test(status))
		invalid(
			'status must be an end status such as "completed", "failed" or "no-answer" (letters, digits, "_" and "-"; not in_progress)',
		);
	if (call.status !== 'in_progress')
		throw new ApiError(409, `Call ${callId} has already ended (${call.status})`);
	app.simulation.finish(account, call, status);
	return ok(callShape(call));
}

module.exports = { handleControl };
