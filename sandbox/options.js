'use strict';

const { parseVariants } = require('./variants');

/**
 * @typedef {object} SandboxOptions options of startSandbox; all optional
 * @property {number} [port] TCP port, 0 picks a free one (default 4010)
 * @property {string} [host] interface to listen on (default 127.0.0.1, loopback only)
 * @property {string[]} [apiKeys] accepted API keys, one account each (default ["sandbox-key"])
 * @property {number} [agents] agents seeded at start for the first key (default 3)
 * @property {number} [calls] ended calls seeded at start for the first key (default 12)
 * @property {number} [liveCalls] calls in progress seeded at start for the first key, each lasting `callDurationMs` (default 0)
 * @property {number} [seed] seed of the random stream: same seed, same data (default 1)
 * @property {number} [latencyMs] delay added to every API request (default 0)
 * @property {number} [callDurationMs] how long a call placed with POST /call, or seeded live, lasts before it ends by itself (default 15000)
 * @property {number} [webhookRetryDelayMs] delay between webhook delivery attempts (default 500); live keys:
 *   the first wait of the backoff
 * @property {number} [webhookRetryWindowMs] live keys: no webhook retry starts later than this after the
 *   event's first attempt (default 60000: one minute)
 * @property {Record<string, import('./profiles').SandboxProfile>} [profiles] the profile of each key that is
 *   not `documented`, e.g. `{ k2: 'live' }` (default: every key documented)
 * @property {number} [ringMs] live keys: how long a placed call rings before it connects (default 2000)
 * @property {import('./variants').VariantSettings} [variants] what the contract leaves open, switched (see variants.js; POST /_sandbox/reset comes back to these)
 * @property {boolean} [tls] serve HTTPS with a self-signed certificate made at start (default false: HTTP)
 * @property {(line: string) => void} [log] receives the start line ("Voice Agent sandbox listening on ...")
 */

/**
 * @typedef {object} ResolvedOptions
 * @property {number} port
 * @property {string} host
 * @property {string[]} apiKeys
 * @property {number} agents
 * @property {number} calls
 * @property {number} liveCalls
 * @property {number} seed
 * @property {number} latencyMs
 * @property {number} callDurationMs
 * @property {number} webhookRetryDelayMs
 * @property {number} webhookRetryWindowMs
 * @property {number} ringMs
 * @property {Record<string, import('./profiles').SandboxProfile>} profiles
 * @property {boolean} tls
 * @property {import('./variants').VariantSettings} variants
 * @property {((line: string) => void) | undefined} log
 */

/** @typedef {'port' | 'agents' | 'calls' | 'liveCalls' | 'seed' | 'latencyMs' | 'callDurationMs' | 'webhookRetryDelayMs' | 'webhookRetryWindowMs' | 'ringMs'} IntegerOptionName */

/** Upper bounds of seeding, at start and through POST /_sandbox/seed (see integerBounds). */
const MAX_SEED_AGENTS = 1000;
const MAX_SEED_CALLS = 200_000;
const MAX_SEED_LIVE_CALLS = 1000;

/**
 * The integer options with their command-line flags, bounds and defaults: one table for startSandbox and cli.js.
 * @type {{ name: IntegerOptionName, flag: string, min: number, max: number, fallback: number, help: string }[]}
 */
const INTEGER_OPTIONS = [
	{
		name: 'port',
		flag: '--port',
		min: 0,
		max: 65535,
		fallback: 4010,
		help: 'TCP port; 0 picks a free port',
	},
	{
		name: 'agents',
		flag: '--agents',
		min: 0,
		max: MAX_SEED_AGENTS,
		fallback: 3,
		help: 'agents seeded at start',
	},
	{
		name: 'calls',
		flag: '--calls',
		min: 0,
		max: MAX_SEED_CALLS,
		fallback: 12,
		help: 'ended calls seeded at start',
	},
	{
		name: 'liveCalls',
		flag: '--live-calls',
		min: 0,
		max: MAX_SEED_LIVE_CALLS,
		fallback: 0,
		help: 'calls in progress seeded at start (they end like placed calls)',
	},
	{
		name: 'seed',
		flag: '--seed',
		min: 0,
		max: 4294967295,
		fallback: 1,
		help: 'seed of the generated data',
	},
	{
		name: 'latencyMs',
		flag: '--latency-ms',
		min: 0,
		max: 60_000,
		fallback: 0,
		help: 'delay added to every API request',
	},
	{
		name: 'callDurationMs',
		flag: '--call-duration-ms',
		min: 1,
		max: 86_400_000,
		fallback: 15_000,
		help: 'how long a placed or live seeded call lasts before it ends',
	},
	{
		name: 'webhookRetryDelayMs',
		flag: '--webhook-retry-ms',
		min: 0,
		max: 600_000,
		fallback: 500,
		help: 'delay between webhook delivery attempts (live keys: the first wait of the backoff)',
	},
	{
		name: 'webhookRetryWindowMs',
		flag: '--webhook-retry-window-ms',
		min: 0,
		max: 3_600_000,
		fallback: 60_000,
		help: 'live keys: no webhook retry starts later than this after the first attempt',
	},
	{
		name: 'ringMs',
		flag: '--ring-ms',
		min: 0,
		max: 3_600_000,
		fallback: 2_000,
		help: 'live keys: how long a placed call rings before it connects',
	},
];

/**
 * The bounds of an integer option (POST /_sandbox/seed checks its fields against the same ones).
 * @param {IntegerOptionName} name
 * @returns {{ min: number, max: number }}
 */
function integerBounds(name) {
	const option = INTEGER_OPTIONS.find((candidate) => candidate.name === name);
	if (!option) throw new Error(`No integer option ${name}`);
	return option;
}

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_API_KEY = 'sandbox-key';

/**
 * @param {unknown} key
 * @returns {key is string}
 */
function isValidApiKey(key) {
	return typeof key === 'string' && /^\S+$/.test(key);
}

/**
 * The `profiles` option: an object whose keys are API keys of the sandbox and whose values are profiles.
 * @param {unknown} profiles
 * @param {string[]} apiKeys
 * @returns {Record<string, import('./profiles').SandboxProfile>}
 */
function resolveProfiles(profiles, apiKeys) {
	if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles))
		throw new TypeError('profiles must be an object such as { "key": "live" }');
	/** @type {Record<string, import('./profiles').SandboxProfile>} */
	const resolved = {};
	for (const [key, profile] of Object.entries(profiles)) {
		if (!apiKeys.includes(key)) throw new TypeError('profiles names a key that is not in apiKeys');
		if (profile !== 'documented' && profile !== 'live')
			throw new TypeError('a profile is "documented" or "live"');
		resolved[key] = profile;
	}
	return resolved;
}

/**
 * Checks the options and fills in the defaults; throws a TypeError naming the bad option.
 * @param {SandboxOptions} options
 * @returns {ResolvedOptions}
 */
function resolveOptions(options) {
	/** @type {Record<string, number>} */
	const numbers = {};
	for (const { name, min, max, fallback } of INTEGER_OPTIONS) {
		const value = options[name] ?? fallback;
		if (!Number.isInteger(value) || value < min || value > max) {
			throw new TypeError(
				`${name} must be an integer from ${min} to ${max}, got ${String(options[name])}`,
			);
		}
		numbers[name] = value;
	}
	const host = options.host ?? DEFAULT_HOST;
	if (typeof host !== 'string' || host === '')
		throw new TypeError('host must be a non-empty string');
	const apiKeys = options.apiKeys ?? [DEFAULT_API_KEY];
	if (!Array.isArray(apiKeys) || apiKeys.length === 0 || !apiKeys.every(isValidApiKey)) {
		throw new TypeError('apiKeys must be a non-empty array of non-empty strings without spaces');
	}
	if (new Set(apiKeys).size !== apiKeys.length)
		throw new TypeError('apiKeys must not repeat a key');
	if (options.tls !== undefined && typeof options.tls !== 'boolean')
		throw new TypeError('tls must be true or false');
	let variants;
	try {
		variants = parseVariants(options.variants ?? {});
	} catch (error) {
		throw new TypeError(`variants: ${error instanceof Error ? error.message : String(error)}`);
	}
	if (options.log !== undefined && typeof options.log !== 'function')
		throw new TypeError('log must be a function');
	const profiles = resolveProfiles(options.profiles ?? {}, apiKeys);
	return {
		port: numbers.port,
		host,
		apiKeys: [...apiKeys],
		agents: numbers.agents,
		calls: numbers.calls,
		liveCalls: numbers.liveCalls,
		seed: numbers.seed,
		latencyMs: numbers.latencyMs,
		callDurationMs: numbers.callDurationMs,
		webhookRetryDelayMs: numbers.webhookRetryDelayMs,
		webhookRetryWindowMs: numbers.webhookRetryWindowMs,
		ringMs: numbers.ringMs,
		profiles,
		tls: options.tls ?? false,
		variants,
		log: options.log,
	};
}

module.exports = {
	INTEGER_OPTIONS,
	integerBounds,
	DEFAULT_HOST,
	DEFAULT_API_KEY,
	isValidApiKey,
	resolveOptions,
};
