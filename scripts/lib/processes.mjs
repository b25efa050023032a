// Child processes for the scripts: run one with its output captured, free ports, process groups
// that end with the caller, and waiting for a condition. Node built-ins only.

import { spawn } from 'node:child_process';
import net from 'node:net';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last `lines` lines of a text, for error messages. */
export function tail(text, lines = 30) {
	return String(text).split('\n').slice(-lines).join('\n');
}

/** A duration for progress lines: `42s`, `3m05s`. */
export function duration(ms) {
	const total = Math.round(ms / 1000);
	if (total < 60) return `${total}s`;
	return `${Math.floor(total / 60)}m${String(total % 60).padStart(2, '0')}s`;
}

/** A free TCP port on 127.0.0.1 (asked from the OS; tiny race until the caller binds it). */
export function findFreePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** Whether nothing listens on the port yet (checked on all interfaces, as n8n and the sandbox bind). */
export function portIsFree(port) {
	return new Promise((resolve) => {
		const probe = net.createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, () => probe.close(() => resolve(true)));
	});
}

/** The preferred port when it is free, else a free one: `{ port, fallback }`. 0: any free port. */
export async function choosePort(preferred) {
	if (preferred && (await portIsFree(preferred))) return { port: preferred, fallback: false };
	return { port: await findFreePort(), fallback: Boolean(preferred) };
}

// Every process group started here, so a crashing or interrupted caller still ends them.
const liveGroups = new Set();
let exitHookInstalled = false;

/** Sends a signal to a whole process group (started with detached: true). */
export function killGroup(pid, signal = 'SIGTERM') {
	if (!pid) return false;
	for (const target of [-pid, pid]) {
		try {
			process.kill(target, signal);
			return true;
		} catch {
			/* try the process itself, then give up */
		}
	}
	return false;
}

export function groupAlive(pgid) {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Ends the process group (SIGKILL) when this process exits or is interrupted. */
export function trackProcessGroup(pgid) {
	liveGroups.add(pgid);
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	const killAll = () => {
		for (const group of liveGroups) killGroup(group, 'SIGKILL');
	};
	process.on('exit', killAll);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.once(signal, () => {
			killAll();
			// Let the signal do what it would have done without this hook.
			if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
		});
	}
}

export function untrackProcessGroup(pgid) {
	liveGroups.delete(pgid);
}

/**
 * Spawns a command in its own process group with its output piped; the group ends with this process
 * (trackProcessGroup). `uid`/`gid` run it as another user (when this process runs as root).
 * @param {string} command
 * @param {string[]} args
 * `stdin: true` gives it a standard input to write to (child.stdin); otherwise it has none.
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, uid?: number, gid?: number, stdin?: boolean }} [options]
 */
export function spawnGroup(command, args, { cwd, env, uid, gid, stdin = false } = {}) {
	const child = spawn(command, args, {
		cwd,
		env,
		uid,
		gid,
		stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
		detached: true, // its own process group: ending it ends everything it started
	});
	if (child.pid) trackProcessGroup(child.pid);
	return child;
}

/**
 * Runs a command in its own process group with its output captured; a timeout ends the whole group,
 * and so does the end of the command (helpers it left behind go with it).
 * @param {string} command
 * @param {string[]} args
 * `uid`/`gid` run it as another user (when this process runs as root); `input` is written to its
 * standard input, which is then closed.
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, uid?: number, gid?: number, timeoutMs?: number,
 *   onOutput?: (chunk: Buffer) => void, input?: string }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string,
 *   output: string, ms: number, timedOut: boolean }>}
 */
export function runCaptured(
	command,
	args,
	{ cwd, env, uid, gid, timeoutMs = 300_000, onOutput, input } = {},
) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const child = spawnGroup(command, args, { cwd, env, uid, gid, stdin: input !== undefined });
		if (input !== undefined) {
			// A program that exits before reading all of it closes the pipe: its exit code tells.
			child.stdin.on('error', () => {});
			child.stdin.end(input);
		}
		let stdout = '';
		let stderr = '';
		let output = '';
		let timedOut = false;
		child.stdout.on('data', (chunk) => {
			stdout += chunk;
			output += chunk;
			onOutput?.(chunk);
		});
		child.stderr.on('data', (chunk) => {
			stderr += chunk;
			output += chunk;
			onOutput?.(chunk);
		});
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child.pid, 'SIGKILL');
		}, timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			if (child.pid) untrackProcessGroup(child.pid);
			reject(new Error(`could not start ${command}: ${error.message}`));
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			killGroup(child.pid, 'SIGKILL');
			untrackProcessGroup(child.pid);
			resolve({ code, signal, stdout, stderr, output, ms: Date.now() - started, timedOut });
		});
	});
}

/**
 * Polls `probe` until it returns a value other than undefined, and returns that value. Throws
 * `onTimeout()` (an Error) after `timeoutMs`; `probe` may throw to give up early.
 */
export async function waitFor(probe, { timeoutMs, intervalMs = 200, onTimeout }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw onTimeout();
		await sleep(intervalMs);
	}
}
