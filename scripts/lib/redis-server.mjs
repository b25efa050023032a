// A throwaway Redis for n8n's queue mode: a free port on 127.0.0.1, its files in a temp folder,
// nothing persisted, stopped and removed afterwards. Node built-ins only.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { startLongRunning } from './long-running.mjs';
import { findFreePort } from './processes.mjs';
import { ensurePrograms } from './system-programs.mjs';

/** Whether Redis answers PING on the port. */
function answersPing(port) {
	return new Promise((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		let reply = '';
		const done = (ok) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(1000, () => done(false));
		socket.on('error', () => done(false));
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			reply += chunk;
			if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
		});
	});
}

/**
 * Starts redis-server (installed first when missing, see ensurePrograms).
 * @returns {Promise<{ host: string, port: number, dir: string, logFile: string, stop: () => Promise<void> }>}
 */
export async function startRedis({ log } = {}) {
	const { redis } = await ensurePrograms(['redis'], { log });
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-redis-'));
	const port = await findFreePort();
	try {
		const server = await startLongRunning(
			redis,
			[
				'--port',
				String(port),
				'--bind',
				'127.0.0.1',
				'--dir',
				dir,
				'--save',
				'',
				'--appendonly',
				'no',
				'--daemonize',
				'no',
				'--logfile',
				'',
			],
			{
				name: 'redis-server',
				cwd: dir,
				logFile: path.join(dir, 'redis.log'),
				isReady: () => answersPing(port),
				timeoutMs: 30_000,
			},
		);
		return {
			host: '127.0.0.1',
			port,
			dir,
			logFile: server.logFile,
			async stop() {
				await server.stop();
				fs.rmSync(dir, { recursive: true, force: true });
			},
		};
	} catch (error) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}
