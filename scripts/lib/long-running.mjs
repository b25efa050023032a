// A long-running child process (an n8n server, worker or webhook processor; Redis; PostgreSQL):
// started in its own process group, its output kept and logged to a file, ready when the caller's
// probe says so, and stopped with everything it started. Node built-ins only.

import fs from 'node:fs';

import {
	groupAlive,
	killGroup,
	sleep,
	spawnGroup,
	tail,
	untrackProcessGroup,
	waitFor,
} from './processes.mjs';

const OUTPUT_KEPT = 1_000_000; // characters of output kept in memory (all of it is in the log file)

/**
 * Starts `command args` and waits until `isReady(output)` resolves true.
 * @param {string} command
 * @param {string[]} args
 * @param {{ name: string, cwd?: string, env?: NodeJS.ProcessEnv, uid?: number, gid?: number,
 *   logFile: string, isReady: (output: string) => Promise<boolean> | boolean, timeoutMs?: number,
 *   stopSignal?: NodeJS.Signals, log?: (line: string) => void }} options
 * @returns {Promise<{ pid: number, startMs: number, logFile: string, output: () => string,
 *   exited: () => { code: number | null, signal: string | null } | undefined,
 *   stop: (options?: { timeoutMs?: number }) => Promise<void> }>}
 */
export async function startLongRunning(command, args, options) {
	const { name, cwd, env, uid, gid, logFile, isReady, timeoutMs = 120_000, log } = options;
	const stopSignal = options.stopSignal ?? 'SIGTERM';
	const logStream = fs.createWriteStream(logFile, { flags: 'a' });
	const started = Date.now();
	const child = spawnGroup(command, args, { cwd, env, uid, gid });
	const spawnError = new Promise((resolve) => child.once('error', resolve));
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
		if (child.pid) {
			if (!exited) killGroup(child.pid, stopSignal);
			const deadline = Date.now() + stopTimeoutMs;
			while (Date.now() < deadline && (!exited || groupAlive(child.pid))) await sleep(100);
			if (!exited || groupAlive(child.pid)) {
				killGroup(child.pid, 'SIGKILL');
				await Promise.race([exitPromise, sleep(5000)]);
				const until = Date.now() + 5000;
				while (groupAlive(child.pid) && Date.now() < until) await sleep(100);
			}
			untrackProcessGroup(child.pid);
		}
		await new Promise((resolve) => logStream.end(resolve));
		if (child.pid && groupAlive(child.pid))
			throw new Error(`${name} (process group ${child.pid}) did not stop`);
	}

	try {
		await waitFor(
			async () => {
				const error = await Promise.race([spawnError, sleep(0)]);
				if (error) throw new Error(`could not start ${name} (${command}): ${error.message}`);
				if (exited)
					throw new Error(`${name} exited early (${JSON.stringify(exited)}):\n${tail(output, 40)}`);
				return (await isReady(output)) ? true : undefined;
			},
			{
				timeoutMs,
				onTimeout: () =>
					new Error(`${name} was not ready within ${timeoutMs} ms:\n${tail(output, 40)}`),
			},
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return {
		pid: child.pid,
		startMs: Date.now() - started,
		logFile,
		output: () => output,
		exited: () => exited,
		stop,
	};
}
