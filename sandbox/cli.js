#!/usr/bin/env node
'use strict';

// npm run sandbox -- [options]: runs the sandbox until SIGINT or SIGTERM.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startSandbox } = require('./index');
const { INTEGER_OPTIONS, DEFAULT_HOST, DEFAULT_API_KEY, isValidApiKey } = require('./options');

/** @typedef {import('./options').SandboxOptions} SandboxOptions */

const USAGE = [
	'Usage: npm run sandbox -- [options]',
	'',
	'Runs a local Voice Agent Calling Service at http://HOST:PORT/v1.',
	'',
	'Options:',
	...INTEGER_OPTIONS.map(
		({ flag, help, fallback }) => `  ${`${flag} N`.padEnd(28)}${help} (default ${fallback})`,
	),
	`  ${'--host HOST'.padEnd(28)}interface to listen on (default ${DEFAULT_HOST})`,
	`  ${'--api-key KEY'.padEnd(28)}accepted API key, repeat for several accounts (default ${DEFAULT_API_KEY})`,
	`  ${'--profile KEY=live'.padEnd(28)}serve that key as the live service runs (repeatable; default: documented)`,
	`  ${'--tls'.padEnd(28)}serve HTTPS with a self-signed certificate made at start; its file is printed`,
	`  ${'--variants JSON'.padEnd(28)}what the contract leaves open, switched, e.g. '{"end_statuses":["completed","busy"]}'`,
	`  ${'-h, --help'.padEnd(28)}show this help`,
	'',
	'Control endpoints (no auth): POST /_sandbox/reset, /_sandbox/seed, /_sandbox/faults, /_sandbox/variants, /_sandbox/live;',
	'GET /_sandbox/requests, /_sandbox/deliveries, /_sandbox/profiles; POST /_sandbox/calls/{id}/events, .../complete,',
	'.../connect, .../freeze. See sandbox/README.md.',
].join('\n');

/**
 * @param {string} message
 * @returns {never}
 */
function usageError(message) {
	process.stderr.write(`Error: ${message}\nRun with --help for the options.\n`);
	process.exit(2);
}

/**
 * @param {string[]} argv
 * @returns {SandboxOptions | null} null when --help was asked for
 */
function parseCommandLine(argv) {
	/** @type {import('node:util').ParseArgsConfig['options']} */
	const flags = {
		host: { type: 'string' },
		'api-key': { type: 'string', multiple: true },
		profile: { type: 'string', multiple: true },
		tls: { type: 'boolean' },
		variants: { type: 'string' },
		help: { type: 'boolean', short: 'h' },
	};
	for (const { flag } of INTEGER_OPTIONS) flags[flag.slice(2)] = { type: 'string' };

	/** @type {Record<string, string | boolean | (string | boolean)[] | undefined>} */
	let values;
	try {
		({ values } = parseArgs({ args: argv, options: flags, strict: true, allowPositionals: false }));
	} catch (error) {
		usageError(error instanceof Error ? error.message : String(error));
	}
	if (values.help) return null;

	/** @type {SandboxOptions} */
	const options = {};
	for (const { name, flag, min, max } of INTEGER_OPTIONS) {
		const raw = values[flag.slice(2)];
		if (raw === undefined) continue;
		const value = Number(raw);
		if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value < min || value > max) {
			usageError(`${flag} must be an integer from ${min} to ${max}, got "${String(raw)}"`);
		}
		options[name] = value;
	}
	if (values.host !== undefined) {
		if (values.host === '') usageError('--host must not be empty');
		options.host = String(values.host);
	}
	const apiKeys = values['api-key'];
	if (Array.isArray(apiKeys)) {
		const bad = apiKeys.find((key) => !isValidApiKey(key));
		if (bad !== undefined)
			usageError(`--api-key must be a non-empty key without spaces, got "${String(bad)}"`);
		if (new Set(apiKeys).size !== apiKeys.length)
			usageError('--api-key is given twice with the same key');
		options.apiKeys = apiKeys.map(String);
	}
	const profiles = values.profile;
	if (Array.isArray(profiles)) {
		const keys = options.apiKeys ?? [DEFAULT_API_KEY];
		options.profiles = {};
		for (const entry of profiles.map(String)) {
			const match = /^(\S+)=(documented|live)$/.exec(entry);
			if (!match) usageError('--profile must be KEY=live or KEY=documented');
			if (!keys.includes(match[1])) usageError('--profile names a key that no --api-key gives');
			options.profiles[match[1]] = /** @type {'documented' | 'live'} */ (match[2]);
		}
	}
	if (values.tls) options.tls = true;
	if (values.variants !== undefined) {
		try {
			options.variants = JSON.parse(String(values.variants));
		} catch {
			usageError(`--variants must be a JSON object, e.g. '{"create_answer":"empty_202"}'`);
		}
	}
	return options;
}

/**
 * Writes the certificate where clients can be told to trust it; the folder goes when the sandbox stops.
 * @param {string} certificate PEM
 * @returns {string} the file
 */
function writeCertificate(certificate) {
	const file = path.join(
		fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-sandbox-')),
		'cert.pem',
	);
	fs.writeFileSync(file, certificate);
	return file;
}

async function main() {
	const options = parseCommandLine(process.argv.slice(2));
	if (!options) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	const started = startSandbox({
		...options,
		log: (line) => process.stdout.write(`${line}\n`),
	}).catch((error) => {
		const reason = error instanceof Error ? error.message : String(error);
		process.stderr.write(`Error: the sandbox could not start: ${reason}\n`);
		process.exit(1);
	});
	/** @type {string | undefined} */
	let certificateFile;
	// Handlers before the start line: until a handler is installed, a signal ends the process at once
	// (exit code null), and whoever read the line may send one right away.
	let stopping = false;
	const stop = () => {
		if (stopping) process.exit(1); // a second signal: stop at once
		stopping = true;
		started
			.then((sandbox) => sandbox.close())
			.then(() => {
				if (certificateFile)
					fs.rmSync(path.dirname(certificateFile), { recursive: true, force: true });
				process.exit(0);
			});
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	const sandbox = await started;
	if (sandbox.certificate) {
		certificateFile = writeCertificate(sandbox.certificate);
		process.stdout.write(
			`TLS certificate: ${certificateFile} (trust it, e.g. NODE_EXTRA_CA_CERTS=${certificateFile})\n`,
		);
	}
}

void main();
