// The demo's Voice Agent service: the sandbox (sandbox/, this repository's local implementation of
// the service) seeded with agents and calls, and requests to it with the demo's API key.

import { createRequire } from 'node:module';

import { choosePort } from './processes.mjs';

const { startSandbox } = createRequire(import.meta.url)('../../sandbox/index.js');

export const SANDBOX_API_KEY = 'sandbox-key';

/** The sandbox with seeded agents and calls on the preferred port, or a free one when that is taken. */
export async function startSeededSandbox({ port: preferred = 4010, agents = 4, calls = 40 } = {}) {
	const { port, fallback } = await choosePort(preferred);
	const sandbox = await startSandbox({ port, apiKeys: [SANDBOX_API_KEY], agents, calls });
	return { sandbox, fallback };
}

/** A request to the sandbox's API (path relative to /v1) with the demo key. */
export async function sandboxApi(sandbox, method, urlPath, body) {
	const response = await fetch(`${sandbox.baseUrl}${urlPath}`, {
		method,
		headers: {
			authorization: `Bearer ${SANDBOX_API_KEY}`,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok)
		throw new Error(`sandbox ${method} ${urlPath} answered ${response.status}: ${text}`);
	return text ? JSON.parse(text) : null;
}
