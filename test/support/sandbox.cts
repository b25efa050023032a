/**
 * The sandbox as test suites use it: a fresh Voice Agent service on a free port, plus typed helpers for its
 * API (/v1) and its control endpoints (/_sandbox). Every suite starts its own with `useSandbox`, which
 * starts it before the suite, resets it before each test and closes it after the suite:
 *
 *   const sandbox = useSandbox({ callDurationMs: 60_000 });
 *   test('...', async () => {
 *     const { status, body } = await sandbox.api('POST', '/agent', { body: { name: 'A', area_code: '415' } });
 *   });
 */
import { startSandbox } from '../../sandbox/index.js';
import { forSuite } from './lifecycle.cts';
import type { SandboxOptions } from '../../sandbox/options.js';
import type { FaultSettings } from '../../sandbox/faults.js';
import type { VariantSettings } from '../../sandbox/variants.js';
import type { RecordedDelivery, RecordedRequest } from '../../sandbox/logs.js';
import type { SandboxProfile } from '../../sandbox/profiles.js';
import type { LiveSettings } from '../../sandbox/live/settings.js';
import { DEFAULT_API_KEY } from '../../sandbox/options.js';

export type {
	FaultSettings,
	LiveSettings,
	RecordedDelivery,
	RecordedRequest,
	SandboxOptions,
	SandboxProfile,
	VariantSettings,
};

export interface HttpResult<T = any> {
	status: number;
	headers: Headers;
	/**
	 * Parsed JSON (also when a live key's answer sends it as text/plain); the raw text when the answer is not
	 * JSON; null when it is empty.
	 */
	body: T;
	/** The body as it came. */
	text: string;
}

export interface ApiRequestOptions {
	/** API key sent as `Authorization: Bearer <key>`; defaults to the first key; null sends no header. */
	key?: string | null;
	query?: Record<string, string | number | boolean | undefined>;
	/** Sent as JSON. */
	body?: unknown;
	/** Sent as is instead of `body` (invalid JSON, oversized bodies). */
	rawBody?: string | Uint8Array;
	headers?: Record<string, string>;
}

export interface SeedRequest {
	agents?: number;
	calls?: number;
	/** Calls in progress, created now (newest), lasting `call_duration_ms`. */
	live_calls?: number;
	call_duration_ms?: number;
	/** The ended calls follow each other this many a second (several share one second). */
	calls_per_second?: number;
	api_key?: string;
}

export interface TestSandbox {
	origin: string;
	/** origin + '/v1': the base URL a credential holds. */
	baseUrl: string;
	/** The first API key (the account that `seed` fills by default). */
	apiKey: string;
	apiKeys: string[];
	close(): Promise<void>;
	reset(): Promise<void>;
	seed(
		body: SeedRequest,
	): Promise<{ agents_created: number; calls_created: number; live_calls_created: number }>;
	/** Replaces the fault settings; `{}` clears them. Answers the settings in force. */
	faults(body: FaultSettings): Promise<FaultSettings & { times_remaining?: number }>;
	/** Replaces the variants of what the contract leaves open (sandbox/variants.js); `{}` restores the defaults. */
	variants(body: VariantSettings): Promise<VariantSettings>;
	requests(): Promise<RecordedRequest[]>;
	clearRequests(): Promise<void>;
	deliveries(): Promise<RecordedDelivery[]>;
	/** The profile of each key, in the start order (`account` is the key's position). */
	profiles(): Promise<{ accounts: { account: number; profile: SandboxProfile }[] }>;
	/** Replaces the live profile's settings (ring time, event delays, empty retry bodies); `{}` restores the start's. */
	live(body: LiveSettings): Promise<LiveSettings>;
	/** A request to the API; `path` is relative to /v1 (e.g. '/calls'). */
	api<T = any>(method: string, path: string, options?: ApiRequestOptions): Promise<HttpResult<T>>;
	/** A request to a control endpoint; `path` is relative to /_sandbox (e.g. '/reset'). */
	control<T = any>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
}

/** The sandbox's start options, and `profile`: the profile of every key (`profiles` then names exceptions). */
export type TestSandboxOptions = SandboxOptions & { profile?: SandboxProfile };

export interface UseSandboxOptions {
	/** Reset before each test (true): false when the tests share data the suite made in beforeAll. */
	reset?: boolean;
}

/**
 * A reset sandbox is a new service whose call IDs begin again: Call → Create's gate in this test file's
 * process forgets the calls of the service before it, as a fresh n8n process would (dist/ is built first).
 */
function forgetGate(): void {
	const gate = require('../../dist/nodes/VoiceAgent/actions/call/create/gate/numberGate.js') as {
		clearGate(): void;
	};
	gate.clearGate();
}

/** The suite's sandbox: started in beforeAll, reset before each test, closed in afterAll. */
export function useSandbox(
	options: TestSandboxOptions = {},
	{ reset = true }: UseSandboxOptions = {},
): TestSandbox {
	return forSuite({
		name: 'The test sandbox',
		start: () => startTestSandbox(options),
		close: (sandbox) => sandbox.close(),
		reset: reset ? (sandbox) => sandbox.reset() : undefined,
	});
}

/**
 * Starts a sandbox on a free loopback port. Unlike the CLI it starts with an empty store (no seeded
 * agents or calls) unless `agents` / `calls` are given, so tests only see the data they create.
 */
export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
	const { profile, ...start } = options;
	const keys = start.apiKeys ?? [DEFAULT_API_KEY];
	const profiles = profile
		? { ...Object.fromEntries(keys.map((key) => [key, profile])), ...start.profiles }
		: start.profiles;
	const sandbox = await startSandbox({ agents: 0, calls: 0, ...start, profiles, port: 0 });
	const apiKey = sandbox.apiKeys[0];

	async function request<T>(
		url: string,
		method: string,
		init: RequestInit,
	): Promise<HttpResult<T>> {
		const response = await fetch(url, { ...init, method });
		const text = await response.text();
		const type = response.headers.get('content-type') ?? '';
		const body =
			text === '' ? null : type.includes('json') ? JSON.parse(text) : plainBody(type, text);
		return { status: response.status, headers: response.headers, body, text };
	}

	async function control<T = any>(
		method: string,
		path: string,
		body?: unknown,
	): Promise<HttpResult<T>> {
		const init: RequestInit =
			body === undefined
				? {}
				: { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
		return request<T>(`${sandbox.origin}/_sandbox${path}`, method, init);
	}

	/** A control call that must succeed: its body, or an error with the sandbox's message. */
	async function controlOk<T>(method: string, path: string, body?: unknown): Promise<T> {
		const result = await control<T>(method, path, body);
		if (result.status !== 200) {
			throw new Error(
				`${method} /_sandbox${path} answered ${result.status}: ${JSON.stringify(result.body)}`,
			);
		}
		return result.body;
	}

	async function api<T = any>(
		method: string,
		path: string,
		options: ApiRequestOptions = {},
	): Promise<HttpResult<T>> {
		const url = new URL(`${sandbox.baseUrl}${path}`);
		for (const [name, value] of Object.entries(options.query ?? {})) {
			if (value !== undefined) url.searchParams.set(name, String(value));
		}
		const headers: Record<string, string> = {};
		const key = options.key === undefined ? apiKey : options.key;
		if (key !== null) headers.authorization = `Bearer ${key}`;
		let body: string | Uint8Array | undefined = options.rawBody;
		if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
		if (body !== undefined) headers['content-type'] = 'application/json';
		return request<T>(url.href, method, { headers: { ...headers, ...options.headers }, body });
	}

	return {
		origin: sandbox.origin,
		baseUrl: sandbox.baseUrl,
		apiKey,
		apiKeys: sandbox.apiKeys,
		close: () => sandbox.close(),
		reset: async () => {
			await controlOk('POST', '/reset');
			forgetGate();
		},
		seed: (body) => controlOk('POST', '/seed', body),
		faults: (body) => controlOk('POST', '/faults', body),
		variants: (body) => controlOk('POST', '/variants', body),
		requests: () => controlOk('GET', '/requests'),
		clearRequests: async () => {
			await controlOk('DELETE', '/requests');
		},
		deliveries: () => controlOk('GET', '/deliveries'),
		profiles: () => controlOk('GET', '/profiles'),
		live: (body) => controlOk('POST', '/live', body),
		api,
		control,
	};
}

/** A body that is not sent as JSON: parsed when it is JSON sent as plain text (a live key's answers), else the text. */
function plainBody(type: string, text: string): unknown {
	if (!type.startsWith('text/plain')) return text;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
