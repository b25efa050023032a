'use strict';

const { once } = require('node:events');
const { resolveOptions } = require('./options');
const { SandboxApp } = require('./app');
const { createHttpServer } = require('./server');
const { selfSignedCertificate } = require('./certificate');

// The public face of the sandbox: startSandbox and the types a caller needs (its options, the fault settings
// of POST /_sandbox/faults, the entries of the request and delivery logs). Everything else is internal.

/** @typedef {import('./options').SandboxOptions} SandboxOptions */
/** @typedef {import('./faults').FaultSettings} FaultSettings */
/** @typedef {import('./logs').RecordedRequest} RecordedRequest */
/** @typedef {import('./logs').RecordedDelivery} RecordedDelivery */

/**
 * @typedef {object} Sandbox a running sandbox
 * @property {string} origin e.g. http://127.0.0.1:4010, or https://... with `tls` (control endpoints live under
 *   origin + /_sandbox)
 * @property {string} baseUrl origin + /v1, the base URL a credential holds
 * @property {number} port the port it listens on (the real one when started with port 0)
 * @property {string[]} apiKeys the accepted API keys, the first one holds the start-up seed
 * @property {string | undefined} certificate with `tls`: the self-signed certificate (PEM) a client must trust
 * @property {() => Promise<void>} close stops listening, drops open connections and cancels every timer
 */

/**
 * The start line the CLI prints, e.g.
 * `Voice Agent sandbox listening on http://127.0.0.1:4010/v1 (API key: sandbox-key)`.
 * @param {string} baseUrl
 * @param {string[]} apiKeys
 * @returns {string}
 */
function startLine(baseUrl, apiKeys) {
	return `Voice Agent sandbox listening on ${baseUrl} (API ${apiKeys.length === 1 ? 'key' : 'keys'}: ${apiKeys.join(', ')})`;
}

/**
 * Starts a local Voice Agent Calling Service.
 * @param {SandboxOptions} [options]
 * @returns {Promise<Sandbox>}
 */
async function startSandbox(options = {}) {
	const config = resolveOptions(options);
	const app = new SandboxApp(config);
	const tls = config.tls
		? selfSignedCertificate(['localhost', '127.0.0.1', '::1', config.host])
		: undefined;
	const server = createHttpServer(app, tls);
	server.listen(config.port, config.host);
	try {
		await once(server, 'listening');
	} catch (error) {
		app.stop();
		throw error;
	}
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : config.port;
	const host = config.host.includes(':') ? `[${config.host}]` : config.host;
	const origin = `${tls ? 'https' : 'http'}://${host}:${port}`;
	const baseUrl = `${origin}/v1`;
	config.log?.(startLine(baseUrl, config.apiKeys));

	/** @type {Promise<void> | undefined} */
	let closing;
	const close = () => {
		closing ??= new Promise((resolve) => {
			app.stop();
			server.close(() => resolve());
			server.closeAllConnections();
		});
		return closing;
	};
	const certificate = tls?.cert;
	return { origin, baseUrl, port, apiKeys: [...config.apiKeys], certificate, close };
}

module.exports = { startSandbox };
