'use strict';

const { ApiError } = require('./errors');
const { newAgent, newCall, isoTime } = require('./records');
const {
	agentShape,
	agentListShape,
	callShape,
	callListShape,
	callContextShape,
} = require('./shapes');
const { encodeCursor, decodeCursor } = require('./keyset');
const { invalid } = require('./checks');
const { parseAgentUpsert } = require('./agentValidation');
const { parseCallCreate, parseContextUpdate } = require('./callValidation');
const { requireQueryId, parseLimit, optionalParam } = require('./query');

/** @typedef {import('./store').Account} Account */
/** @typedef {import('./random').Random} Random */
/** @typedef {import('./simulation').CallSimulator} CallSimulator */
/** @typedef {import('./variants').ContractVariants} ContractVariants */

/** @typedef {{ account: Account, query: URLSearchParams, body: unknown }} ApiRequest */
/**
 * An answer; `empty`: no body at all (not even JSON `null`); `html`: this page instead of a JSON body.
 * @typedef {{ status: number, body: unknown, headers?: Record<string, string>, empty?: boolean, html?: string, json?: string, text?: string, goJson?: boolean, drop?: boolean, createdCallId?: string | number }} Reply
 * (`html`: sent as that page; `json`: sent as that text, JSON or not, with the JSON content type; `text`: sent
 * as that plain text; `goJson`: the body as JSON sent as plain text with a newline, as the live service does;
 * `drop`: no answer at all, the connection is closed)
 */
/** @typedef {(request: ApiRequest) => Reply | Promise<Reply>} Handler */

/**
 * @param {unknown} body
 * @returns {Reply}
 */
const ok = (body) => ({ status: 200, body });

/**
 * The endpoints under /v1, keyed by "METHOD /path" (the same keys fault `match` uses).
 * @param {{ random: Random, simulation: CallSimulator, variants: ContractVariants }} deps
 * @returns {Map<string, Handler>}
 */
function createApiRoutes({ random, simulation, variants }) {
	/** @type {[string, Handler][]} */
	const routes = [
		[
			'POST /agent',
			({ account, body }) => {
				const { name, areaCode, settings } = parseAgentUpsert(body);
				const now = Date.now();
				const existing = account.agentsByName.get(name);
				if (existing) {
					// Upsert by name: omitted fields keep their values.
					Object.assign(existing, settings, { updated_at: isoTime(now) });
					return ok(agentShape(existing));
				}
				if (areaCode === undefined) {
					invalid(
						`name and area_code are required to create a new agent; there is no agent named "${name}" and area_code (3 digits, e.g. "415") is missing`,
					);
				}
				const agent = newAgent(account, { name, areaCode, settings }, random, now);
				account.addAgent(agent);
				return ok(agentShape(agent));
			},
		],
		[
			'GET /agent',
			({ account, query }) => {
				const id = requireQueryId(query);
				const agent = account.agents.get(id);
				if (!agent) throw new ApiError(404, `Agent ${id} not found`);
				return ok(agentShape(agent));
			},
		],
		[
			'PUT /agent',
			() => {
				throw new ApiError(
					501,
					'PUT /agent is not implemented: update an agent with POST /agent (upsert by name)',
				);
			},
		],
		[
			'DELETE /agent',
			({ account, query }) => {
				const id = requireQueryId(query);
				const agent = account.agents.get(id);
				if (!agent) throw new ApiError(404, `Agent ${id} not found`);
				account.removeAgent(agent);
				return ok({ id, deleted: true });
			},
		],
		[
			'GET /agents',
			({ account, query }) => {
				const limit = parseLimit(query);
				const cursor = optionalParam(query, 'cursor');
				const page = account.agentList.page(cursor ? decodeCursor('agents', cursor) : null, limit);
				const last = page.items[page.items.length - 1];
				return ok({
					num_items: page.items.length,
					cursor: page.hasMore ? encodeCursor('agents', last) : null,
					agents: page.items.map(agentListShape),
				});
			},
		],
		[
			'POST /call',
			({ account, body }) => {
				const { from, to, context, userSpeaksFirst } = parseCallCreate(body);
				const agent = account.agentsByPhone.get(from);
				if (!agent) invalid(`from must be the phone_number of one of your agents; ${from} is not`);
				const call = newCall(account, { agent, to, context, userSpeaksFirst }, random, Date.now());
				account.addCall(call);
				simulation.place(account, call);
				// The call is placed whatever the answer looks like (variants.js).
				return { ...variants.createAnswer(callShape(call)), createdCallId: call.id };
			},
		],
		[
			'GET /call',
			({ account, query }) => {
				const id = requireQueryId(query);
				const call = account.calls.get(id);
				if (!call) throw new ApiError(404, `Call ${id} not found`);
				return ok(callShape(call));
			},
		],
		[
			'POST /call/context',
			({ account, body }) => {
				const { id, context } = parseContextUpdate(body);
				const call = account.calls.get(id);
				if (!call) throw new ApiError(404, `Call ${id} not found`);
				if (call.status !== 'in_progress') {
					invalid(
						`Call ${id} is ${call.status}: the context can only be set while the call is in_progress`,
					);
				}
				call.context = context;
				call.contexts.push(context);
				call.updated_at = isoTime(Date.now());
				return ok(callContextShape(call));
			},
		],
		[
			'GET /calls',
			({ account, query }) => {
				const limit = parseLimit(query);
				const cursor = optionalParam(query, 'cursor');
				const page = account.listCalls({
					after: cursor ? decodeCursor('calls', cursor) : null,
					limit,
					agentId: optionalParam(query, 'agent_id'),
					clientNumber: optionalParam(query, 'client_number'),
				});
				const last = page.items[page.items.length - 1];
				// A lagging list (variants.js): calls newer than the lag are not shown yet.
				const lagMs = variants.listLagMs;
				const shown = page.items.filter((call) => Date.now() - call.created_ms >= lagMs);
				return ok({
					num_items: shown.length,
					cursor: page.hasMore ? encodeCursor('calls', last) : null,
					calls: shown.map(callListShape),
				});
			},
		],
	];
	return new Map(routes);
}

module.exports = { createApiRoutes };
