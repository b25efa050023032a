// The demo's Voice Agent service: the sandbox (sandbox/, this repository's local implementation of
// the service) seeded with agents and calls, and requests to it with the demo's API key.

import { createRequire } from 'node:module';

import { choosePort } from './processes.mjs';
import { requestSandbox } from './sandbox-client.mjs';

const { startSandbox } = createRequire(import.meta.url)('../../sandbox/index.js');

export const SANDBOX_API_KEY = 'sandbox-key';

/**
 * Calls in progress when the demo starts, lasting a day, to push context into by hand. Placed calls
 * keep the sandbox's short default length, so a call placed in the demo ends and the trigger runs.
 * The seed is fixed: the push-context example's sample number is one of these calls' numbers.
 */
export const DEMO_LIVE_CALLS = Object.freeze({ count: 3, durationMs: 24 * 3_600_000 });

/** The sandbox with seeded agents and calls on the preferred port, or a free one when that is taken. */
export async function startSeededSandbox({
	port: preferred = 4010,
	agents = 4,
	calls = 40,
	liveCalls = DEMO_LIVE_CALLS.count,
} = {}) {
	const { port, fallback } = await choosePort(preferred);
	const sandbox = await startSandbox({ port, apiKeys: [SANDBOX_API_KEY], agents, calls });
	if (liveCalls > 0) {
		const body = { live_calls: liveCalls, call_duration_ms: DEMO_LIVE_CALLS.durationMs };
		try {
			await requestSandbox(sandbox, SANDBOX_API_KEY, 'POST', '/seed', body, { control: true });
		} catch (error) {
			await sandbox.close();
			throw new Error(`seeding live calls failed: ${error.message}`, { cause: error });
		}
	}
	return { sandbox, fallback };
}

/** A request to the sandbox's API (path relative to /v1) with the demo key. */
export async function sandboxApi(sandbox, method, urlPath, body) {
	return await requestSandbox(sandbox, SANDBOX_API_KEY, method, urlPath, body);
}
