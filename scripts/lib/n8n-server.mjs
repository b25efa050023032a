// n8n's long-running commands on a user folder: a real `n8n start` on 127.0.0.1 (the owner set up
// and logged in through the REST client), and `n8n worker` or `n8n webhook` for queue mode. Each
// runs in its own process group, is ready when its health check and start-up log say so, and stops
// with everything it started. Node built-ins only.

import path from 'node:path';

import { startLongRunning } from './long-running.mjs';
import { dialectFor } from './n8n-dialect.mjs';
import { n8nEnv } from './n8n-env.mjs';
import { N8nRestClient } from './n8n-rest.mjs';
import { findFreePort } from './processes.mjs';
import { runtimePaths } from './runtime-folder.mjs';
import { harnessDir } from './user-folder.mjs';

/** The owner a fresh folder gets: the password has 8-64 characters, a digit and an upper-case letter. */
const DEFAULT_OWNER = Object.freeze({
	email: 'owner@example.com',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Passw0rd',
});

/**
 * Starts `n8n start` for the user folder and waits until it is ready.
 * @param {string} userFolder
 * @param {{ runtime?: ReturnType<typeof runtimePaths>, port?: number, env?: Record<string, string>,
 *   timeoutMs?: number, log?: (line: string) => void }} [options]
 */
export async function startN8nServer(
	userFolder,
	{ runtime = runtimePaths(), port, env = {}, timeoutMs = 120_000, log } = {},
) {
	const serverPort = port || (await findFreePort());
	const url = `http://127.0.0.1:${serverPort}`;
	const n8n = await startN8nProcess(runtime, userFolder, {
		command: 'start',
		env: {
			N8N_PORT: String(serverPort),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: 'localhost',
			N8N_PROTOCOL: 'http',
			[dialectFor(runtime).webhookUrlSetting]: `${url}/`,
			N8N_EDITOR_BASE_URL: `${url}/`,
			...env,
		},
		healthUrl: `${url}/healthz/readiness`,
		readyLine: /Editor is now accessible/,
		timeoutMs,
		log,
	});
	const rest = new N8nRestClient(url, runtime);
	return {
		url,
		port: serverPort,
		...n8n,
		rest,
		runtime,
		/** The production URL of a Webhook node's path. */
		webhookUrl: (webhookPath) => `${url}/webhook/${String(webhookPath).replace(/^\//, '')}`,
		/** Sets up the owner (first call on a folder) and logs in; returns the owner user. */
		async setupOwnerAndLogin(user = {}) {
			const owner = { ...DEFAULT_OWNER, ...user };
			try {
				await rest.setupOwner(owner);
			} catch (error) {
				// Already set up (a server started again on the same folder): log in instead.
				if (error.status !== 400 && error.status !== 403) throw error;
			}
			return await rest.login(owner);
		},
	};
}

/**
 * Starts `n8n <command> ...args` (start, worker, webhook) on a user folder with its own task broker
 * port; ready when `healthUrl` answers 200 and n8n printed `readyLine`.
 * @returns {ReturnType<typeof startLongRunning> & { userFolder: string, brokerPort: number }}
 */
export async function startN8nProcess(
	runtime,
	userFolder,
	{ command, args = [], env = {}, healthUrl, readyLine, timeoutMs = 120_000, log },
) {
	const brokerPort = await findFreePort();
	const child = await startLongRunning(runtime.node, [runtime.n8n, command, ...args], {
		name: `n8n ${command}`,
		cwd: userFolder,
		env: n8nEnv(runtime, userFolder, {
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
			N8N_LOG_LEVEL: 'info',
			...env,
		}),
		logFile: path.join(harnessDir(userFolder), `n8n-${command}-${brokerPort}.log`),
		isReady: async (output) => readyLine.test(output) && (await answers200(healthUrl)),
		timeoutMs,
		log,
	});
	return { ...child, userFolder, brokerPort };
}

async function answers200(url) {
	try {
		const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
		return response.status === 200;
	} catch {
		return false; // not listening yet
	}
}
