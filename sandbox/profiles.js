'use strict';

// Profiles: each API key is served as the documented service (docs/service.md) or as the live service runs
// (the `live` profile, sandbox/live/). The server asks a key's profile at each step of a request where the
// two differ: which endpoint runs, how errors, injected faults and odd answers are written, and whether a
// body that is not JSON is refused before the endpoint. Everything else (latency, auth, routing, rate
// limits, faults, logs) is the same for both.

const { errorReply } = require('./httpMessages');
const { errorBody } = require('./errors');
const { proxyErrorPage } = require('./answerForms');
const { liveErrorReply, liveCheckReply, liveFaultReply, liveOddReply } = require('./live/answers');

/** @typedef {import('./api').Reply} Reply */
/** @typedef {import('./faults').Fault} Fault */
/** @typedef {import('./app').SandboxApp} SandboxApp */

/** @typedef {'documented' | 'live'} SandboxProfile */

const PROFILES = /** @type {const} */ (['documented', 'live']);

/**
 * @typedef {object} ServiceProfile how the API serves the accounts of one profile
 * @property {SandboxProfile} name
 * @property {boolean} checksJsonFirst a body that is not JSON is a 400 before the endpoint runs (documented);
 *   false: the endpoints that decode a body answer it, the others ignore the body (live)
 * @property {(apiKey: string, route: string, query: URLSearchParams, body: unknown) => Reply | Promise<Reply>} serve
 *   runs the endpoint for the key's account
 * @property {(error: unknown) => Reply} errorReply an endpoint's error
 * @property {(error: unknown) => Reply} checkReply a check before the endpoint failed (path, key, route,
 *   body, rate limit)
 * @property {(route: string, fault: Fault) => Reply} faultReply an injected error
 * @property {(route: string, reply: Reply) => Reply} finish an endpoint's answer as the odd-answer variants
 *   make it
 * @property {(reply: Reply) => Reply} outgoing any answer as sent: the times as the variants write them
 */

/**
 * The documented service.
 * @param {SandboxApp} app
 * @returns {ServiceProfile}
 */
function documentedProfile(app) {
	return {
		name: 'documented',
		checksJsonFirst: true,
		serve(apiKey, route, query, body) {
			const handler = app.apiRoutes.get(route);
			const account = app.store.account(apiKey);
			if (!handler || !account) throw new Error(`No documented ${route} for this key`);
			return handler({ account, query, body });
		},
		errorReply,
		checkReply: errorReply,
		faultReply(route, fault) {
			if (fault.status >= 500 && app.variants.proxyErrors) {
				// A proxy in front of the service answers for it, with a page of its own.
				return { status: fault.status, body: null, html: proxyErrorPage(fault.status) };
			}
			const headers =
				fault.status === 429 ? { 'retry-after': String(fault.retryAfterS) } : undefined;
			const message = `Injected fault (sandbox): ${route} answered ${fault.status}${fault.when === 'after' ? ' after the request was carried out' : ''}`;
			return { status: fault.status, body: errorBody(fault.status, message), headers };
		},
		finish: (route, reply) => app.variants.oddAnswer(route, reply),
		outgoing: (reply) => ({ ...reply, body: app.variants.restamp(reply.body) }),
	};
}

/**
 * The live service. Of the variants, only `date_header`, `proxy_errors`, `list_lag_ms` and the odd answers
 * apply: the others change fields the live rows do not have, or forms the live service does not use.
 * @param {SandboxApp} app
 * @returns {ServiceProfile}
 */
function liveProfile(app) {
	return {
		name: 'live',
		checksJsonFirst: false,
		serve: (apiKey, route, query, body) => app.live.serve(apiKey, route, query, body),
		errorReply: liveErrorReply,
		checkReply: liveCheckReply,
		faultReply: (route, fault) => liveFaultReply(route, fault, app.variants.proxyErrors),
		finish: (route, reply) => app.variants.oddAnswer(route, reply, liveOddReply),
		outgoing: (reply) => reply,
	};
}

/** The profile of each API key, as the sandbox was started (reset keeps them). */
class ProfileTable {
	/**
	 * @param {string[]} apiKeys
	 * @param {Record<string, SandboxProfile>} profiles keys not listed are documented
	 */
	constructor(apiKeys, profiles) {
		this.apiKeys = apiKeys;
		/** @type {Map<string, SandboxProfile>} */
		this.byKey = new Map(apiKeys.map((key) => [key, profiles[key] ?? 'documented']));
	}

	/**
	 * @param {string} apiKey
	 * @returns {SandboxProfile | undefined} undefined for a key the sandbox does not accept
	 */
	of(apiKey) {
		return this.byKey.get(apiKey);
	}

	/**
	 * @param {SandboxProfile} profile
	 * @returns {string[]} the keys of that profile, in the order of the keys
	 */
	keysOf(profile) {
		return this.apiKeys.filter((key) => this.byKey.get(key) === profile);
	}

	/** GET /_sandbox/profiles: one entry per key in the start order (`account` is its position, as in call-load). */
	describe() {
		return {
			accounts: this.apiKeys.map((key, account) => ({ account, profile: this.byKey.get(key) })),
		};
	}
}

module.exports = { PROFILES, ProfileTable, documentedProfile, liveProfile };
