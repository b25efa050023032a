'use strict';

// The endpoints under /v1 as the live service's handlers answer them (the same "METHOD /path" keys as the
// documented ones, so fault `match` names both).

const { ApiError } = require('../errors');
const { isE164 } = require('../checks');
const { goJson } = require('./answers');
const { decodeAgent, decodeCall, decodeContext, atoi } = require('./decode');
const { newLiveAgent, replaceLiveAgent, newLiveCall, setLiveContext, sid } = require('./rows');
const { nowUs, rfc3339, wholeSecond, parseTime } = require('./time');

/** @typedef {import('../api').Reply} Reply */
/** @typedef {import('./account').LiveAccount} LiveAccount */
/** @typedef {import('./service').LiveService} LiveService */
/** @typedef {{ account: LiveAccount, query: URLSearchParams, body: unknown }} LiveRequest */
/** @typedef {(request: LiveRequest) => Reply} LiveHandler */

const DEFAULT_LIMIT = 10;

/**
 * No answer at all: the handler panics on a limit of 0 or less (probably indexing an empty page), and Go's
 * server recovers by closing the connection without writing a response.
 * @type {Reply}
 */
const PANIC = { status: 0, body: null, drop: true };

/**
 * The `id` of GET /agent, DELETE /agent and GET /call, read with Atoi.
 * @param {URLSearchParams} query
 * @returns {number}
 */
function queryId(query) {
	const id = atoi(query.get('id') ?? '');
	if (id === undefined) throw new ApiError(400, 'Invalid id parameter');
	return id;
}

/**
 * A list's query: `limit` (default 10, no maximum; 400 when not a number) and `cursor` (a time; 500 when the
 * database cannot read it as one). A limit of 0 or less is a panic, after the query.
 * @param {URLSearchParams} query
 * @param {'calls' | 'agents'} list
 * @returns {{ limit: number, beforeUs: number | undefined }}
 */
function listQuery(query, list) {
	const rawLimit = query.get('limit') ?? '';
	const limit = rawLimit === '' ? DEFAULT_LIMIT : atoi(rawLimit);
	if (limit === undefined) throw new ApiError(400, 'Invalid limit parameter');
	const cursor = query.get('cursor') ?? '';
	const beforeUs = cursor === '' ? undefined : parseTime(cursor);
	if (cursor !== '' && beforeUs === undefined) throw new ApiError(500, `Failed to fetch ${list}`);
	return { limit, beforeUs };
}

/**
 * A page: `cursor` is the last item's created_at cut to the second, given when the page is full (so a list
 * whose length is a multiple of the limit ends with an empty page), left out otherwise.
 * @template {{ createdUs: number, row: object }} T
 * @param {'calls' | 'agents'} list
 * @param {T[]} items
 * @param {number} limit
 * @param {T[]} [shown] the items shown, when a lagging list hides some
 * @returns {Reply}
 */
function page(list, items, limit, shown = items) {
	const last = items[items.length - 1];
	const cursor = items.length === limit ? rfc3339(wholeSecond(last.createdUs)) : undefined;
	return goJson({
		num_items: shown.length,
		...(cursor === undefined ? {} : { cursor }),
		[list]: shown.map((item) => item.row),
	});
}

/**
 * @param {LiveService} service
 * @returns {Map<string, LiveHandler>}
 */
function createLiveRoutes(service) {
	/** @type {[string, LiveHandler][]} */
	const routes = [
		[
			'POST /agent',
			({ account, body }) => {
				const { name, settings } = decodeAgent(body);
				const existing = account.agentsByName.get(name);
				if (existing) {
					replaceLiveAgent(existing, settings, nowUs());
					return goJson(existing.row);
				}
				const agent = newLiveAgent({
					id: service.nextAgentId(),
					userId: account.userId,
					name,
					phoneNumber: service.buyNumber(),
					settings,
					createdUs: nowUs(),
				});
				account.addAgent(agent);
				return goJson(agent.row);
			},
		],
		[
			'GET /agent',
			({ account, query }) => {
				const agent = account.agents.get(queryId(query));
				if (!agent) throw new ApiError(404, 'Agent not found');
				return goJson(agent.row);
			},
		],
		[
			'PUT /agent',
			() => {
				throw new ApiError(405, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
			},
		],
		[
			'DELETE /agent',
			({ account, query }) => {
				const agent = account.agents.get(queryId(query));
				if (!agent) throw new ApiError(404, 'Agent not found');
				account.removeAgent(agent);
				return { status: 204, body: null, empty: true };
			},
		],
		[
			'GET /agents',
			({ account, query }) => {
				const { limit, beforeUs } = listQuery(query, 'agents');
				if (limit <= 0) return PANIC;
				return page('agents', account.agentList.page(beforeUs, limit), limit);
			},
		],
		[
			'POST /call',
			({ account, body }) => {
				const { from, to, context, userSpeaksFirst } = decodeCall(body);
				const agent = account.agentsByPhone.get(from);
				if (!agent) throw new ApiError(400, "Invalid 'from' phone number");
				// The service passes `to` to the phone network as it is; the network refuses what it cannot dial.
				if (!isE164(to)) throw new ApiError(500, 'Failed to make phone call');
				const call = newLiveCall({
					id: service.nextCallId(),
					userId: account.userId,
					agent: agent.row,
					to,
					context,
					userSpeaksFirst,
					twilioSid: sid(service.random, 'CA'),
					createdUs: nowUs(),
				});
				account.addCall(call);
				service.calls.place(account, call);
				return { ...goJson(call.row), createdCallId: call.row.id };
			},
		],
		[
			'GET /call',
			({ account, query }) => {
				const call = account.calls.get(queryId(query));
				if (!call) throw new ApiError(404, 'Call not found');
				return goJson(call.row);
			},
		],
		[
			'POST /call/context',
			({ account, body }) => {
				const { id, context } = decodeContext(body);
				const call = account.calls.get(id);
				if (!call) throw new ApiError(404, 'Call not found');
				setLiveContext(call, context, nowUs());
				return goJson(call.row);
			},
		],
		[
			'GET /calls',
			({ account, query }) => {
				const { limit, beforeUs } = listQuery(query, 'calls');
				const rawAgent = query.get('agent_id') ?? '';
				const agentId = rawAgent === '' ? undefined : atoi(rawAgent);
				if (agentId === undefined && rawAgent !== '')
					throw new ApiError(400, 'Invalid agent_id parameter');
				if (limit <= 0) return PANIC;
				const items = account.listCalls({
					beforeUs,
					limit,
					agentId,
					clientNumber: query.get('client_number') || undefined,
				});
				// A lagging list (variants.js): calls newer than the lag are not shown yet.
				const lagUs = service.variants.listLagMs * 1000;
				const shown = items.filter((call) => nowUs() - call.createdUs >= lagUs);
				return page('calls', items, limit, shown);
			},
		],
	];
	return new Map(routes);
}

module.exports = { createLiveRoutes };
