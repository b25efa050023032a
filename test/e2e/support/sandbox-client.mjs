// The e2e suites' sandbox: an empty account to start from, and its API and control endpoints bound
// to one API key.
import { createRequire } from 'node:module';

import { requestSandbox } from '../../../scripts/lib/sandbox-client.mjs';

const { startSandbox } = createRequire(import.meta.url)('../../../sandbox/index.js');

/**
 * A sandbox with one empty account; calls last ten minutes unless a test ends them. `options` are the
 * sandbox's own (e.g. `callDurationMs`).
 */
export async function startEmptySandbox(apiKey, options = {}) {
	return await startSandbox({
		port: 0,
		apiKeys: [apiKey],
		agents: 0,
		calls: 0,
		callDurationMs: 600_000,
		...options,
	});
}

/** Requests to a running sandbox with one API key (see requestSandbox). */
export function sandboxClient(sandbox, apiKey) {
	const call = (method, urlPath, body, options) =>
		requestSandbox(sandbox, apiKey, method, urlPath, body, options);
	const control = (method, urlPath, body) => call(method, urlPath, body, { control: true });
	return {
		call,
		control,
		requestLog: () => control('GET', '/requests'),
		clearRequestLog: () => control('DELETE', '/requests'),
		deliveries: () => control('GET', '/deliveries'),
	};
}
