// End-to-end harness around the pinned real n8n (scripts/lib/n8n-runtime.mjs): throwaway user
// folders, community packages installed the way users get them, headless imports and runs, and a
// real `n8n start` server driven through n8n's own REST API (the endpoints the editor uses).
//
// Runs under the system Node (20 or later); only Node built-ins. n8n itself runs under Node 24.

import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

import {
	cleanNpmEnv,
	findFreePort,
	killGroup,
	n8nEnv,
	runN8n,
	runtimePaths,
	trackProcessGroup,
	untrackProcessGroup,
} from './n8n-runtime.mjs';
import { N8nRestClient } from './n8n-rest.mjs';

export { ensureRuntime, findFreePort, n8nEnv, runN8n, runtimePaths } from './n8n-runtime.mjs';

const HARNESS_DIR = '.harness'; // inside the user folder: import files, server logs

// ---------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A 16-character id in the alphabet n8n uses for workflow and credential ids. */
export function newN8nId() {
	const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
	const bytes = randomBytes(16);
	let id = '';
	for (const b of bytes) id += alphabet[b % alphabet.length];
	return id;
}

function harnessDir(userFolder) {
	const dir = path.join(userFolder, HARNESS_DIR);
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}

function tail(text, lines = 30) {
	return String(text).split('\n').slice(-lines).join('\n');
}

function groupAlive(pgid) {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

// ---------------------------------------------------------------------------------------------------
// User folders and community packages
// ---------------------------------------------------------------------------------------------------

/**
 * A throwaway N8N_USER_FOLDER in the OS temp folder. n8n keeps its data in `<folder>/.n8n`.
 * @param {{ prefix?: string, parent?: string }} [options]
 * @returns {string} absolute path
 */
export function createUserFolder({ prefix = 'voice-agent-n8n-', parent = os.tmpdir() } = {}) {
	const dir = fs.mkdtempSync(path.join(parent, prefix));
	fs.mkdirSync(path.join(dir, '.n8n'), { recursive: true });
	return dir;
}

/** Deletes a user folder made by createUserFolder (stop its server first). */
export function removeUserFolder(userFolder) {
	fs.rmSync(userFolder, { recursive: true, force: true });
}

/** Reads package/package.json out of an npm tarball (.tgz) without unpacking it. */
export function readTarballPackageJson(tarballPath) {
	const buf = gunzipSync(fs.readFileSync(tarballPath));
	let off = 0;
	let longName;
	while (off + 512 <= buf.length) {
		const header = buf.subarray(off, off + 512);
		if (header.every((b) => b === 0)) break;
		const field = (s, n) =>
			header
				.subarray(s, s + n)
				.toString('utf8')
				.replace(/\0.*$/s, '');
		let name = field(0, 100);
		const prefix = field(345, 155);
		if (prefix) name = `${prefix}/${name}`;
		const size = parseInt(field(124, 12).trim() || '0', 8);
		const type = String.fromCharCode(header[156] || 48);
		const body = buf.subarray(off + 512, off + 512 + size);
		off += 512 + Math.ceil(size / 512) * 512;
		if (type === 'L') {
			longName = body.toString('utf8').replace(/\0.*$/s, '');
			continue;
		}
		if (type === 'x' || type === 'g') continue;
		if (longName) {
			name = longName;
			longName = undefined;
		}
		// npm tarballs put everything under one top folder, usually "package/".
		if (/^[^/]+\/package\.json$/.test(name)) return JSON.parse(body.toString('utf8'));
	}
	throw new Error(`no package.json at the top of ${tarballPath}`);
}

function runCommand(cmd, args, { cwd, env, timeoutMs = 300000 } = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code, out });
		});
	});
}

/**
 * Installs an `npm pack` tarball as a community package, the way n8n installs one: into
 * `<userFolder>/.n8n/nodes` with the system npm (`--legacy-peer-deps` so the peer n8n-workflow is
 * not installed; n8n brings its own). Do it before starting a server on the folder.
 * n8n loads only packages named `n8n-nodes-*` or `@scope/n8n-nodes-*` from there; node types are
 * then `<package name>.<node name>`.
 * @returns {Promise<{ name: string, version: string, dir: string, nodeTypePrefix: string }>}
 */
export async function installPackageTarball(userFolder, tarballPath) {
	const tarball = path.resolve(tarballPath);
	const pkg = readTarballPackageJson(tarball);
	if (!/^(@[^/]+\/)?n8n-nodes-/.test(pkg.name)) {
		throw new Error(
			`n8n only loads community packages named n8n-nodes-* or @scope/n8n-nodes-*; got "${pkg.name}"`,
		);
	}
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pj = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pj)) {
		fs.writeFileSync(
			pj,
			`${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2)}\n`,
		);
	}
	const r = await runCommand(
		process.platform === 'win32' ? 'npm.cmd' : 'npm',
		[
			'install',
			'--legacy-peer-deps',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--prefer-offline',
			tarball,
		],
		{ cwd: nodesDir, env: cleanNpmEnv() },
	);
	const dir = path.join(nodesDir, 'node_modules', pkg.name);
	if (r.code !== 0 || !fs.existsSync(path.join(dir, 'package.json'))) {
		throw new Error(
			`npm install of ${tarball} into ${nodesDir} failed (exit ${r.code}):\n${tail(r.out)}`,
		);
	}
	return { name: pkg.name, version: pkg.version, dir, nodeTypePrefix: `${pkg.name}.` };
}

// ---------------------------------------------------------------------------------------------------
// Headless: import and execute
// ---------------------------------------------------------------------------------------------------

function checkCliResult(what, r) {
	const out = `${r.stdout}\n${r.stderr}`;
	if (r.timedOut) throw new Error(`${what} timed out after ${r.ms} ms:\n${tail(out)}`);
	if (r.code !== 0 || /An error occurred while importing/i.test(out)) {
		throw new Error(`${what} failed (exit ${r.code}):\n${tail(out)}`);
	}
}

/**
 * Imports credentials with `n8n import:credentials`. Each entry is n8n's import format:
 * `{ id?, name, type, data: { ...plain fields } }`; plain `data` is encrypted by the import with the
 * folder's encryption key. Missing ids are generated. They go to the owner's personal project.
 * @returns {Promise<string[]>} the credential ids, in order
 */
export async function importCredentials(userFolder, credentials, { env } = {}) {
	const list = credentials.map((c) => ({ id: c.id ?? newN8nId(), ...c }));
	const file = path.join(harnessDir(userFolder), `credentials-${Date.now()}-${process.pid}.json`);
	fs.writeFileSync(file, JSON.stringify(list, null, 2), { mode: 0o600 });
	const r = await runN8n(['import:credentials', `--input=${file}`], { userFolder, env });
	fs.rmSync(file, { force: true }); // plain secrets: keep them on disk no longer than needed
	checkCliResult('n8n import:credentials', r);
	return list.map((c) => c.id);
}

/**
 * Imports workflows with `n8n import:workflow` (inactive; activate through the server's REST API).
 * Fills in what n8n expects when missing: id, node ids, connections, settings, active: false.
 * @returns {Promise<string[]>} the workflow ids, in order
 */
export async function importWorkflows(userFolder, workflows, { env } = {}) {
	const list = workflows.map((w) => ({
		id: w.id ?? newN8nId(),
		name: w.name ?? 'e2e workflow',
		active: false,
		connections: {},
		settings: { executionOrder: 'v1' },
		...w,
		nodes: (w.nodes ?? []).map((n) => ({ id: n.id ?? randomUUID(), ...n })),
	}));
	const file = path.join(harnessDir(userFolder), `workflows-${Date.now()}-${process.pid}.json`);
	fs.writeFileSync(file, JSON.stringify(list, null, 2));
	const r = await runN8n(['import:workflow', `--input=${file}`], { userFolder, env });
	checkCliResult('n8n import:workflow', r);
	return list.map((w) => w.id);
}

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/**
 * Finds the run JSON in the output of `n8n execute --rawOutput`: the last pretty-printed top-level
 * object (a line that is exactly `{` up to the next line that is exactly `}`) that looks like a run.
 * Log lines before or after it (and around it) are ignored.
 * @returns {object | undefined}
 */
export function extractRunJson(output) {
	const lines = String(output).replace(ANSI, '').split(/\r?\n/);
	const looksLikeRun = (o) => o && typeof o === 'object' && o.data && o.data.resultData;
	for (let i = lines.length - 1; i >= 0; i--) {
		if (lines[i] !== '{') continue;
		for (let j = i + 1; j < lines.length; j++) {
			if (lines[j] !== '}') continue;
			try {
				const obj = JSON.parse(lines.slice(i, j + 1).join('\n'));
				if (looksLikeRun(obj)) return obj;
			} catch {
				/* not this one */
			}
			break;
		}
	}
	try {
		const obj = JSON.parse(String(output).trim());
		if (looksLikeRun(obj)) return obj;
	} catch {
		/* no plain JSON either */
	}
	return undefined;
}

/**
 * Runs a workflow headless with `n8n execute --id=ID --rawOutput` (it must start with a Manual
 * Trigger). Resolves to the details; `run` is n8n's IRun (`run.data.resultData.runData[node]`,
 * `run.data.resultData.error` when it failed, `run.status`).
 * A failed run is still returned (ok: false, run with its error) when n8n printed it; the
 * process's output is in stdout/stderr either way.
 * @returns {Promise<{ ok: boolean, run: object | undefined, code: number|null, stdout: string, stderr: string, ms: number }>}
 */
export async function executeWorkflowDetailed(
	userFolder,
	workflowId,
	{ env, timeoutMs = 180000 } = {},
) {
	// At info level n8n also prints the run of a failed execution; the JSON is found among the logs.
	const r = await runN8n(['execute', `--id=${workflowId}`, '--rawOutput'], {
		userFolder,
		env: { N8N_LOG_LEVEL: 'info', ...env },
		timeoutMs,
	});
	const run = extractRunJson(r.stdout) ?? extractRunJson(`${r.stdout}\n${r.stderr}`);
	const ok = r.code === 0 && Boolean(run) && !run.data.resultData.error;
	return {
		ok,
		run,
		code: r.code,
		stdout: r.stdout,
		stderr: r.stderr,
		ms: r.ms,
		timedOut: r.timedOut,
	};
}

/**
 * Runs a workflow headless and returns its parsed run JSON (n8n's IRun). Throws when no run JSON
 * could be read from the output; a failed run is returned, with `run.data.resultData.error` set.
 */
export async function executeWorkflow(userFolder, workflowId, options = {}) {
	const d = await executeWorkflowDetailed(userFolder, workflowId, options);
	if (!d.run) {
		throw new Error(
			`n8n execute --id=${workflowId} printed no run JSON (exit ${d.code}${d.timedOut ? ', timed out' : ''}):\n` +
				`${tail(`${d.stdout}\n${d.stderr}`, 40)}`,
		);
	}
	return d.run;
}

/** The items (their `json`) a node output in a run: `runData[node][runIndex].data.main[output]`. */
export function nodeOutput(run, nodeName, { runIndex = 0, output = 0 } = {}) {
	const runData = run?.data?.resultData?.runData ?? {};
	const nodeRuns = runData[nodeName];
	if (!nodeRuns)
		throw new Error(
			`node "${nodeName}" did not run; nodes that ran: ${Object.keys(runData).join(', ') || 'none'}`,
		);
	const r = nodeRuns[runIndex];
	if (r?.error) throw new Error(`node "${nodeName}" failed: ${r.error.message}`);
	return (r?.data?.main?.[output] ?? []).map((item) => item.json);
}

// ---------------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------------

export { N8nRestClient, parseFlatted } from './n8n-rest.mjs';

/**
 * Starts `n8n start` on 127.0.0.1 for the user folder and waits until it is ready
 * (`/healthz/readiness` answers 200 and n8n printed that the editor is accessible).
 * @param {string} userFolder
 * @param {{ port?: number, env?: Record<string,string>, timeoutMs?: number, log?: (line: string) => void }} [options]
 * @returns {Promise<{ url: string, port: number, webhookUrl: (path: string) => string, rest: N8nRestClient,
 *   pid: number, output: () => string, logFile: string, setupOwnerAndLogin: (user?: object) => Promise<object>,
 *   stop: (options?: { timeoutMs?: number }) => Promise<void> }>}
 */
export async function startN8nServer(userFolder, { port, env = {}, timeoutMs = 120000, log } = {}) {
	const rt = runtimePaths();
	const p = port ?? (await findFreePort());
	const brokerPort = await findFreePort();
	const url = `http://127.0.0.1:${p}`;
	const fullEnv = n8nEnv(userFolder, {
		N8N_PORT: String(p),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: 'localhost',
		N8N_PROTOCOL: 'http',
		N8N_WEBHOOK_URL: `${url}/`,
		N8N_EDITOR_BASE_URL: `${url}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		N8N_LOG_LEVEL: 'info',
		...env,
	});
	const logFile = path.join(harnessDir(userFolder), `n8n-server-${p}.log`);
	const logStream = fs.createWriteStream(logFile, { flags: 'a' });
	const started = Date.now();
	const child = spawn(rt.node, [rt.n8n, 'start'], {
		cwd: userFolder,
		env: fullEnv,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // its own process group: stop() ends n8n and everything it started
	});
	trackProcessGroup(child.pid);
	let output = '';
	let exited = null;
	const onData = (d) => {
		const s = d.toString();
		output += s;
		if (output.length > 2_000_000) output = output.slice(-1_000_000);
		logStream.write(s);
		if (log) for (const line of s.split('\n')) if (line.trim()) log(line);
	};
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	const exitPromise = new Promise((resolve) => {
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			resolve(exited);
		});
	});

	let stopped = false;
	async function stop({ timeoutMs: stopTimeout = 15000 } = {}) {
		if (stopped) return;
		stopped = true;
		if (!exited) killGroup(child.pid, 'SIGTERM');
		const deadline = Date.now() + stopTimeout;
		while (Date.now() < deadline && (!exited || groupAlive(child.pid))) await sleep(100);
		if (!exited || groupAlive(child.pid)) {
			killGroup(child.pid, 'SIGKILL');
			await Promise.race([exitPromise, sleep(5000)]);
			const until = Date.now() + 5000;
			while (groupAlive(child.pid) && Date.now() < until) await sleep(100);
		}
		untrackProcessGroup(child.pid);
		await new Promise((r) => logStream.end(r));
		if (groupAlive(child.pid)) throw new Error(`n8n (process group ${child.pid}) did not stop`);
	}

	// Wait for readiness.
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (exited) {
			await stop();
			throw new Error(`n8n start exited early (${JSON.stringify(exited)}):\n${tail(output, 40)}`);
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n start was not ready within ${timeoutMs} ms:\n${tail(output, 40)}`);
		}
		let ready = false;
		try {
			const res = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
			ready = res.status === 200 && /Editor is now accessible/.test(output);
		} catch {
			/* not listening yet */
		}
		if (ready) break;
		await sleep(200);
	}

	const rest = new N8nRestClient(url);
	const server = {
		url,
		port: p,
		brokerPort,
		pid: child.pid,
		startMs: Date.now() - started,
		logFile,
		rest,
		output: () => output,
		/** The production URL of a Webhook node's path. */
		webhookUrl: (webhookPath) => `${url}/webhook/${String(webhookPath).replace(/^\//, '')}`,
		/** The test URL (works while the editor listens for a test event; rarely useful headless). */
		webhookTestUrl: (webhookPath) =>
			`${url}/webhook-test/${String(webhookPath).replace(/^\//, '')}`,
		/** Sets up the owner (first call on a folder) and logs in; returns the owner user. */
		async setupOwnerAndLogin(user = {}) {
			const owner = {
				email: 'owner@example.com',
				firstName: 'E2E',
				lastName: 'Owner',
				password: 'E2e-Passw0rd',
				...user,
			};
			try {
				await rest.setupOwner(owner);
			} catch (err) {
				// Already set up (a server started again on the same folder): log in instead.
				if (err.status !== 400 && err.status !== 403) throw err;
			}
			return await rest.login(owner);
		},
		stop,
	};
	return server;
}
