// The environment of an n8n process run by the scripts: a throwaway user folder, sqlite, a fixed
// encryption key, offline and quiet, the pinned Node first on PATH. Node built-ins only.

import { createHash } from 'node:crypto';
import path from 'node:path';

import { dialectFor } from './n8n-dialect.mjs';

/** A fixed encryption key per user folder, so credentials imported earlier stay readable. */
function encryptionKeyFor(userFolder) {
	return createHash('sha256')
		.update(`voice-agent-e2e:${path.resolve(userFolder)}`)
		.digest('hex')
		.slice(0, 32);
}

// Stray settings from the caller's shell must not change how the runtime behaves.
const INHERITED_SETTINGS =
	/^(N8N_|DB_|EXECUTIONS_|WEBHOOK_URL$|GENERIC_TIMEZONE$|QUEUE_|npm_|NODE_OPTIONS$)/i;

/**
 * Environment for an n8n process of `runtime` (from ensureRuntime or runtimePaths) using
 * `userFolder` as N8N_USER_FOLDER. `extra` overrides anything; an undefined value removes it.
 * @param {{ node: string, version: string }} runtime
 * @param {string} userFolder
 * @param {Record<string, string | undefined>} [extra]
 */
export function n8nEnv(runtime, userFolder, extra = {}) {
	const inherited = { ...process.env };
	for (const name of Object.keys(inherited)) {
		if (INHERITED_SETTINGS.test(name)) delete inherited[name];
	}
	const env = {
		...inherited,
		// n8n starts its JavaScript task runner (Code node) with the `node` found on PATH.
		PATH: `${path.dirname(runtime.node)}${path.delimiter}${inherited.PATH || ''}`,
		N8N_USER_FOLDER: path.resolve(userFolder),
		N8N_ENCRYPTION_KEY: encryptionKeyFor(userFolder),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		DB_TYPE: 'sqlite',
		// Offline and quiet: nothing phones home.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_LOG_LEVEL: 'warn',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		NODE_ENV: 'production',
		...dialectFor(runtime).env,
		...extra,
	};
	for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
	return env;
}
