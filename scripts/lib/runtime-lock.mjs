// One installer per runtime folder at a time, across processes and worktrees: a lock folder beside
// the runtime. Whoever waits for it says every few seconds what it waits for, for how long, and the
// installer's latest progress line from its install log. Node built-ins only.

import fs from 'node:fs';
import path from 'node:path';

import { duration, sleep } from './processes.mjs';

/** Lines the installer writes into its install log for waiting processes to show. */
export const PROGRESS_PREFIX = '[n8n-runtime] ';

const STALE_MS = 3 * 60 * 60 * 1000; // longer than any install takes: the pid was reused

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function readOwner(lockDir) {
	try {
		return Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8')) || 0;
	} catch {
		return 0; // being written, or gone
	}
}

/** Takes the lock, or removes it when its owner is gone and takes it then. */
function tryTake(lockDir) {
	try {
		fs.mkdirSync(lockDir);
		fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
		return true;
	} catch (error) {
		if (error.code !== 'EEXIST') throw error;
	}
	const owner = readOwner(lockDir);
	let ageMs = 0;
	try {
		ageMs = Date.now() - fs.statSync(lockDir).mtimeMs;
	} catch {
		return tryTake(lockDir); // released meanwhile
	}
	if ((owner && !isAlive(owner)) || ageMs > STALE_MS) {
		fs.rmSync(lockDir, { recursive: true, force: true });
		return tryTake(lockDir);
	}
	return false;
}

/**
 * The installer's latest progress line in its log: one of its own lines, or else the npm command
 * it runs. Reads only the end of the log (npm writes a lot).
 */
export function latestProgress(logFile) {
	let text;
	try {
		const fd = fs.openSync(logFile, 'r');
		try {
			const size = fs.fstatSync(fd).size;
			const length = Math.min(size, 256 * 1024);
			const buffer = Buffer.alloc(length);
			fs.readSync(fd, buffer, 0, length, size - length);
			text = buffer.toString('utf8');
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return undefined;
	}
	const lines = text.split('\n');
	for (let index = lines.length - 1; index >= 0; index--) {
		const line = lines[index].trim();
		if (line.startsWith(PROGRESS_PREFIX.trim())) return line.slice(PROGRESS_PREFIX.length).trim();
		if (line.startsWith('$ npm ')) return `running \`${line.slice(2)}\``;
	}
	return undefined;
}

/**
 * Runs `fn` holding the lock `<root>/.lock-<key>`. While another process holds it, reports every
 * `everyMs` through `progress`; gives up after `maxWaitMs`.
 * @param {{ root: string, key: string, what: string, logFile: string, progress: (line: string) => void,
 *   everyMs?: number, maxWaitMs?: number }} options
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 * @template T
 */
export async function withInstallLock(
	{ root, key, what, logFile, progress, everyMs = 5000, maxWaitMs = 45 * 60 * 1000 },
	fn,
) {
	const lockDir = path.join(root, `.lock-${key}`);
	fs.mkdirSync(root, { recursive: true });
	const started = Date.now();
	let reported = 0;
	while (!tryTake(lockDir)) {
		const waited = Date.now() - started;
		if (waited > maxWaitMs) {
			throw new Error(
				`waited ${duration(waited)} for another process installing ${what}; its lock is ${lockDir}` +
					' (remove it if no install runs)',
			);
		}
		if (reported === 0 || Date.now() - reported >= everyMs) {
			reported = Date.now();
			const owner = readOwner(lockDir);
			const latest = latestProgress(logFile);
			progress(
				`waiting for ${owner ? `process ${owner}` : 'another process'} to finish installing ${what}: ` +
					`${duration(waited)} so far${latest ? `; its latest step: ${latest}` : ''}`,
			);
		}
		await sleep(500);
	}
	if (Date.now() - started > 1000)
		progress(`the lock is free after ${duration(Date.now() - started)}`);
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}
