'use strict';

const { isoTime, endCall } = require('./records');
const { callShape } = require('./shapes');
const { isObject } = require('./checks');

/** @typedef {import('./callLoad').CallLoad} CallLoad */
/** @typedef {import('./timers').TimerSet} TimerSet */
/** @typedef {import('./variants').ContractVariants} ContractVariants */
/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */
/** @typedef {import('./store').Account} Account */
/** @typedef {import('./webhooks').WebhookDispatcher} WebhookDispatcher */
/** @typedef {import('./webhooks').WebhookEvent} WebhookEvent */
/** @typedef {import('./webhooks').AttemptResult} AttemptResult */

/**
 * The life of a call placed with POST /call (or seeded live): `call_started` at once, a `tool_call` for the agent's first tool
 * halfway through (when it has one), and after `callDurationMs` (or the duration given) the call ends by itself, `completed`, or
 * `failed` when the number called ends in 0000 (or with the variants' end statuses), followed by `call_ended`.
 */
class CallSimulator {
	/**
	 * @param {{ callDurationMs: number, webhooks: WebhookDispatcher, timers: TimerSet, load: CallLoad, variants: ContractVariants }} options
	 */
	constructor({ callDurationMs, webhooks, timers, load, variants }) {
		this.variants = variants;
		this.callDurationMs = callDurationMs;
		this.webhooks = webhooks;
		this.timers = timers;
		this.load = load;
		/** @type {Map<string, NodeJS.Timeout[]>} pending steps of each live call */
		this.steps = new Map();
	}

	/**
	 * @param {Account} account
	 * @param {Call} call a call that has just been stored
	 * @param {number} [durationMs] how long it lasts (seeded live calls may last longer than placed ones)
	 */
	start(account, call, durationMs = this.callDurationMs) {
		this.load.started(account.apiKey);
		void this.emit(account, call, 'call_started', callShape(call));
		const tool = firstTool(account.agents.get(call.agent_id));
		/** @type {NodeJS.Timeout[]} */
		const steps = [];
		if (tool) {
			steps.push(
				this.timers.set(
					() => void this.emit(account, call, 'tool_call', tool),
					Math.floor(durationMs / 2),
				),
			);
		}
		// The end status is drawn when the call ends, so calls take the variants' end statuses in the order they end.
		const outcome = () => (call.to.endsWith('0000') ? 'failed' : this.variants.nextEndStatus());
		steps.push(this.timers.set(() => this.finish(account, call, outcome()), durationMs));
		this.steps.set(call.id, steps);
	}

	/**
	 * A call POST /call has just stored: counted as created, then it runs like any live call.
	 * @param {Account} account
	 * @param {Call} call
	 */
	place(account, call) {
		this.load.created(account.apiKey, Date.now());
		this.start(account, call);
	}

	/**
	 * Ends a live call now (by itself, or through POST /_sandbox/calls/{id}/complete).
	 * @param {Account} account
	 * @param {Call} call
	 * @param {string} status anything but in_progress
	 */
	finish(account, call, status) {
		if (this.steps.has(call.id)) this.load.ended(account.apiKey);
		for (const step of this.steps.get(call.id) ?? []) this.timers.clear(step);
		this.steps.delete(call.id);
		endCall(call, status, account.agents.get(call.agent_id), Date.now());
		void this.emit(account, call, 'call_ended', callShape(call));
	}

	/**
	 * Sends one event to the webhook the call's agent has now.
	 * @param {Account} account
	 * @param {Call} call
	 * @param {WebhookEvent['event_type']} eventType
	 * @param {unknown} data
	 * @returns {Promise<{ url: string, result: AttemptResult } | null>} null when there is no webhook
	 */
	async emit(account, call, eventType, data) {
		const url = account.agents.get(call.agent_id)?.webhook;
		if (!url) return null;
		const event = { event_type: eventType, call_id: call.id, timestamp: isoTime(Date.now()), data };
		return { url, result: await this.webhooks.send(url, event) };
	}

	/** Forgets every live call's pending steps (reset and close). */
	cancelAll() {
		this.timers.clearAll();
		this.steps.clear();
		this.load.reset();
	}
}

/**
 * The `tool_call` event data for the agent's first function tool, with made-up arguments that follow its
 * parameter schema where it has one.
 * @param {Agent | undefined} agent
 * @returns {{ name: string, arguments: Record<string, unknown> } | undefined}
 */
function firstTool(agent) {
	return firstToolOf(agent?.tools);
}

/**
 * The first function tool of a list of tools, called with made-up arguments (the live profile's agents
 * may have no list: null).
 * @param {Record<string, unknown>[] | null | undefined} tools
 * @returns {{ name: string, arguments: Record<string, unknown> } | undefined}
 */
function firstToolOf(tools) {
	const fn = tools?.[0]?.function;
	if (!isObject(fn) || typeof fn.name !== 'string') return undefined;
	const properties =
		isObject(fn.parameters) && isObject(fn.parameters.properties) ? fn.parameters.properties : {};
	/** @type {Record<string, unknown>} */
	const args = {};
	for (const [key, schema] of Object.entries(properties)) {
		const type = isObject(schema) ? schema.type : undefined;
		args[key] =
			type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : `sample ${key}`;
	}
	return { name: fn.name, arguments: args };
}

module.exports = { CallSimulator, firstTool, firstToolOf };
