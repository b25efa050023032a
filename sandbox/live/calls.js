'use strict';

const { nowUs } = require('./time');
const { connectLiveCall, endLiveCall } = require('./rows');
const { firstToolOf } = require('../simulation');

/** @typedef {import('../callLoad').CallLoad} CallLoad */
/** @typedef {import('../timers').TimerSet} TimerSet */
/** @typedef {import('../random').Random} Random */
/** @typedef {import('../webhooks').AttemptResult} AttemptResult */
/** @typedef {import('./account').LiveAccount} LiveAccount */
/** @typedef {import('./sender').LiveSender} LiveSender */
/** @typedef {import('./settings').LiveSwitches} LiveSwitches */
/** @typedef {import('./types').LiveAgent} LiveAgent */
/** @typedef {import('./types').LiveCall} LiveCall */
/** @typedef {import('./types').LiveCallRecord} LiveCallRecord */
/** @typedef {import('./types').LiveEventName} LiveEventName */

/**
 * Whether a number is never answered: the sandbox's rule for "no answer, busy, failed", which at the live
 * service look like a call ringing for ever.
 * @param {string} to
 * @returns {boolean}
 */
const neverAnswers = (to) => to.endsWith('0000');

/**
 * The life of a live call. Placed, it rings (no event); after `ring_ms` it connects and `call_started` is
 * sent, unless the number called ends in 0000: such a call rings for ever, and no event is ever sent for
 * it. Connected, it sends a `tool_call` for the agent's first function tool halfway and an `action` for its
 * first action at three quarters, and after the call length it ends (`forward` when it sent an action,
 * `user_hangup` otherwise): the transcript is saved and `call_ended` is sent. Each event is sent on its own
 * (after its `event_delay_ms`), so a call's events may arrive in any order.
 */
class LiveCalls {
	/**
	 * @param {{ callDurationMs: number, sender: LiveSender, timers: TimerSet, load: CallLoad, switches: LiveSwitches, random: Random }} options
	 */
	constructor({ callDurationMs, sender, timers, load, switches, random }) {
		this.callDurationMs = callDurationMs;
		this.sender = sender;
		this.timers = timers;
		this.load = load;
		this.switches = switches;
		this.random = random;
		/** @type {Map<number, NodeJS.Timeout[]>} pending steps of each call */
		this.steps = new Map();
		/** @type {Set<number>} calls counted in progress in the call load until they end */
		this.open = new Set();
	}

	/**
	 * A call POST /call has just stored: counted as created and in progress (until it ends, which a call
	 * never answered never does); it rings, then connects.
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call
	 */
	place(account, call) {
		this.load.created(account.apiKey, Date.now());
		this.count(account, call);
		if (neverAnswers(call.to)) return;
		this.schedule(call, [
			[() => this.connect(account, call, this.callDurationMs), this.switches.ringMs],
		]);
	}

	/**
	 * A seeded call in progress: it connects now and lasts `durationMs`.
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call
	 * @param {number} durationMs
	 */
	startConnected(account, call, durationMs) {
		this.count(account, call);
		this.connect(account, call, durationMs);
	}

	/**
	 * The callee answers now: call_started, and the steps of the conversation.
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call a ringing call
	 * @param {number} [durationMs]
	 */
	connect(account, call, durationMs = this.callDurationMs) {
		const agent = this.agentOf(account, call);
		connectLiveCall(call, agent, nowUs());
		account.numbered(call);
		void this.emit(account, call, 'call_started');
		const tool = toolCall(this.random, firstToolOf(agent?.tools));
		const action = actionCall(this.random, agent?.actions);
		/** @type {[() => void, number][]} */
		const steps = [];
		if (tool)
			steps.push([() => void this.emit(account, call, 'tool_call', [tool]), durationMs / 2]);
		if (action)
			steps.push([() => void this.emit(account, call, 'action', action), (durationMs * 3) / 4]);
		const reason = action ? 'forward' : 'user_hangup';
		steps.push([() => this.finish(account, call, reason), durationMs]);
		this.schedule(call, steps);
	}

	/**
	 * The call ends now (a ringing call connects first): the transcript is saved, call_ended is sent.
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call a call that has not ended
	 * @param {LiveCall['disconnect_reason']} reason
	 */
	finish(account, call, reason) {
		if (call.state === 'ringing') this.connect(account, call);
		this.freeze(call);
		endLiveCall(call, { nowUs: nowUs(), reason, random: this.random });
		if (this.open.delete(call.row.id)) this.load.ended(account.apiKey);
		void this.emit(account, call, 'call_ended');
	}

	/**
	 * The call stays as it is, for ever: ringing (never answered) or in progress (the service crashed).
	 * @param {LiveCallRecord} call
	 */
	freeze(call) {
		for (const step of this.steps.get(call.row.id) ?? []) this.timers.clear(step);
		this.steps.delete(call.row.id);
	}

	/**
	 * Sends one event with the call as it is now to the webhook its agent has now.
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call
	 * @param {LiveEventName} event
	 * @param {unknown} [data]
	 * @param {number} [delayMs] default: the event's `event_delay_ms`
	 * @returns {Promise<{ url: string, result: AttemptResult | null } | null>} null without a webhook
	 */
	async emit(account, call, event, data, delayMs = this.switches.eventDelayMs(event)) {
		const url = this.agentOf(account, call)?.webhook;
		if (!url) return null;
		const body = data === undefined ? { event, call: call.row } : { event, call: call.row, data };
		return { url, result: await this.sender.send(url, body, delayMs) };
	}

	/**
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call
	 * @returns {LiveAgent | undefined}
	 */
	agentOf(account, call) {
		return account.agents.get(call.row.agent_id)?.row;
	}

	/**
	 * @param {LiveAccount} account
	 * @param {LiveCallRecord} call
	 */
	count(account, call) {
		this.open.add(call.row.id);
		this.load.started(account.apiKey);
	}

	/**
	 * Replaces the call's pending steps.
	 * @param {LiveCallRecord} call
	 * @param {[() => void, number][]} steps
	 */
	schedule(call, steps) {
		this.freeze(call);
		this.steps.set(
			call.row.id,
			steps.map(([step, ms]) => this.timers.set(step, Math.floor(ms))),
		);
	}

	/** Forgets every call's pending steps (reset and close). */
	cancelAll() {
		this.timers.clearAll();
		this.steps.clear();
		this.open.clear();
		this.load.reset();
	}
}

const ID_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

/**
 * An OpenAI tool call: `arguments` is a JSON string.
 * @param {Random} random
 * @param {{ name: string, arguments: Record<string, unknown> } | undefined} tool
 */
function toolCall(random, tool) {
	if (!tool) return undefined;
	let id = 'call_';
	for (let i = 0; i < 24; i++) id += random.pick(ID_CHARACTERS);
	return {
		id,
		type: 'function',
		function: { name: tool.name, arguments: JSON.stringify(tool.arguments) },
	};
}

/**
 * The tool call of an `action` event for the agent's first action, or undefined when it has none.
 * @param {Random} random
 * @param {Record<string, unknown>[] | null | undefined} actions
 */
function actionCall(random, actions) {
	const action = actions?.[0];
	if (!action) return undefined;
	return toolCall(random, {
		name: typeof action.name === 'string' ? action.name : '',
		arguments: {},
	});
}

module.exports = { LiveCalls, toolCall, actionCall, neverAnswers };
