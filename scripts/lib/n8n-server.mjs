// A real `n8n start` on 127.0.0.1 for a user folder: started in its own process group, ready when
// its health check and start-up log say so, stopped with everything it started; the owner set up
// and logged in through the REST client. Node built-ins only.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { dialectFor } from './n8n-dialect.mjs';
import { n8nEnv } from './n8n-env.mjs';
import { N8nRestClient } from './n8n-rest.mjs';
import {
	findFreePort,
	groupAlive,
	killGroup,
	sleep,
	tail,
	trackProcessGroup,
	untrackProcessGroup,
	waitFor,
} from './processes.mjs';
import { runtimePaths } from './runtime-folder.mjs';
import { harnessDir } from './user-folder.mjs';

const OUTPUT_KEPT = 1_000_000; // characters of n8n's output kept in memory (all of it is in the log file)

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
	const brokerPort = await findFreePort();
	const url = `http://127.0.0.1:${serverPort}`;
	const logFile = path.join(harnessDir(userFolder), `n8n-server-${serverPort}.log`);
	const logStream = fs.createWriteStream(logFile, { flags: 'a' });
	const started = Date.now();
	const child = spawn(runtime.node, [runtime.n8n, 'start'], {
		cwd: userFolder,
		env: n8nEnv(runtime, userFolder, {
			N8N_PORT: String(serverPort),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: 'localhost',
			N8N_PROTOCOL: 'http',
			[dialectFor(runtime).webhookUrlSetting]: `${url}/`,
			N8N_EDITOR_BASE_URL: `${url}/`,
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
			N8N_LOG_LEVEL: 'info',
			...env,
		}),
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // its own process group: stop() ends n8n and everything it started
	});
	trackProcessGroup(child.pid);
	let output = '';
	const onData = (chunk) => {
		const text = chunk.toString();
		output = (output + text).slice(-OUTPUT_KEPT);
		logStream.write(text);
		if (log) for (const line of text.split('\n')) if (line.trim()) log(line);
	};
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	let exited;
	const exitPromise = new Promise((resolve) => {
		child.on('exit', (code, signal) => resolve((exited = { code, signal })));
	});

	let stopped = false;
	async function stop({ timeoutMs: stopTimeoutMs = 15_000 } = {}) {
		if (stopped) return;
		stopped = true;
		if (!exited) killGroup(child.pid, 'SIGTERM');
		const deadline = Date.now() + stopTimeoutMs;
		while (Date.now() < deadline && (!exited || groupAlive(child.pid))) await sleep(100);
		if (!exited || groupAlive(child.pid)) {
			killGroup(child.pid, 'SIGKILL');
			await Promise.race([exitPromise, sleep(5000)]);
			const until = Date.now() + 5000;
			while (groupAlive(child.pid) && Date.now() < until) await sleep(100);
		}
		untrackProcessGroup(child.pid);
		await new Promise((resolve) => logStream.end(resolve));
		if (groupAlive(child.pid)) throw new Error(`n8n (process group ${child.pid}) did not stop`);
	}

	try {
		await waitFor(
			async () => {
				if (exited)
					throw new Error(
						`n8n start exited early (${JSON.stringify(exited)}):\n${tail(output, 40)}`,
					);
				return (await isReady(url, output)) ? true : undefined;
			},
			{
				timeoutMs,
				onTimeout: () =>
					new Error(`n8n start was not ready within ${timeoutMs} ms:\n${tail(output, 40)}`),
			},
		);
	} catch (error) {
		await stop();
		throw error;
	}

	const rest = new N8nRestClient(url, runtime);
	return {
		url,
		port: serverPort,
		brokerPort,
		pid: child.pid,
		startMs: Date.now() - started,
		logFile,
		rest,
		runtime,
		output: () => output,
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
		stop,
	};
}

/** n8n answers its readiness check and has said that the editor is accessible. */
async function isReady(url, output) {
	if (!/Editor is now accessible/.test(output)) return false;
	try {
		const response = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
		return response.status === 200;
	} catch {
		return false; // not listening yet
	}
}
