// The e2e suites' way to the sandbox: its API (as an account holder) and its control endpoints.
import { createRequire } from 'node:module';

const { startSandbox } = createRequire(import.meta.url)('../../../sandbox/index.js');

/** A sandbox with one empty account; calls last ten minutes unless a test ends them. */
export async function startEmptySandbox(apiKey) {
	return await startSandbox({
		port: 0,
		apiKeys: [apiKey],
		agents: 0,
		calls: 0,
		callDurationMs: 600_000,
	});
}

/**
 * A request to a running sandbox: a path relative to /v1 with the API key, or with `control` to
 * /_sandbox. Answers the parsed JSON; throws on any status other than 2xx.
 */
export function sandboxClient(sandbox, apiKey) {
	async function call(method, urlPath, body, { control = false } = {}) {
		const url = control ? `${sandbox.origin}/_sandbox${urlPath}` : `${sandbox.baseUrl}${urlPath}`;
		const response = await fetch(url, {
			method,
			headers: {
				...(control ? {} : { authorization: `Bearer ${apiKey}` }),
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		const parsed = text ? JSON.parse(text) : null;
		if (!response.ok) throw new Error(`${method} ${urlPath} answered ${response.status}: ${text}`);
		return parsed;
	}
	return {
		call,
		control: (method, urlPath, body) => call(method, urlPath, body, { control: true }),
		requestLog: () => call('GET', '/requests', undefined, { control: true }),
		clearRequestLog: () => call('DELETE', '/requests', undefined, { control: true }),
		deliveries: () => call('GET', '/deliveries', undefined, { control: true }),
	};
}
