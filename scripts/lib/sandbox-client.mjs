// Requests to a running sandbox (this repository's local Voice Agent service) from the e2e tests and
// the demo: its API (paths relative to /v1) with an API key, or with `control` its control endpoints
// (/_sandbox).
// Node built-ins only.

/**
 * One request; answers the parsed JSON body, or throws with the status and the body when it is not 2xx.
 * @param {{ origin: string, baseUrl: string }} sandbox
 * @param {string} apiKey
 * @param {string} method
 * @param {string} urlPath
 * @param {unknown} [body]
 * @param {{ control?: boolean }} [options]
 */
export async function requestSandbox(
	sandbox,
	apiKey,
	method,
	urlPath,
	body,
	{ control = false } = {},
) {
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
	if (!response.ok) throw new Error(`${method} ${urlPath} answered ${response.status}: ${text}`);
	return text ? JSON.parse(text) : null;
}
