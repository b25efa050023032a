// A throwaway PostgreSQL for n8n's queue mode: a new cluster in a temp folder, a free port on
// 127.0.0.1, one password-protected user, databases made on request, stopped and removed afterwards.
//
// PostgreSQL refuses to run as root. Run by a normal user, the cluster is that user's; run as root
// (CI machines), it belongs to the `postgres` system user that Debian's package creates, and the
// server programs run as that user (Node's spawn with uid/gid; no sudo). Node built-ins only.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startLongRunning } from './long-running.mjs';
import { findFreePort, runCaptured, tail } from './processes.mjs';
import { ensurePrograms } from './system-programs.mjs';

const SERVICE_USER = 'postgres';
const DB_USER = 'n8n';

/** uid and gid of the user the cluster runs as: none (this process's) unless this runs as root. */
function clusterOwner() {
	if (process.getuid?.() !== 0) return {};
	const entry = spawnSync('getent', ['passwd', SERVICE_USER], { encoding: 'utf8' });
	const fields = entry.status === 0 ? entry.stdout.trim().split(':') : [];
	if (fields.length < 4) {
		throw new Error(
			`PostgreSQL refuses to run as root, and there is no "${SERVICE_USER}" user to run it as ` +
				"(Debian's postgresql package creates one). Run the tests as a normal user, or create that user.",
		);
	}
	return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Runs a PostgreSQL program to its end, as the cluster's owner; throws with its output if it fails. */
async function runProgram(bin, program, args, { owner, env, what }) {
	const result = await runCaptured(path.join(bin, program), args, {
		env,
		timeoutMs: 120_000,
		...owner,
	});
	if (result.code !== 0)
		throw new Error(`${what} failed (exit ${result.code}):\n${tail(result.output)}`);
	return result;
}

/**
 * Starts a new PostgreSQL cluster (installed first when missing, see ensurePrograms).
 * `createDatabase(name)` makes a database and returns n8n's DB_* settings for it.
 * Durability is off (fsync, synchronous commit): the data is thrown away anyway.
 */
export async function startPostgres({ log } = {}) {
	const { postgres: bin } = await ensurePrograms(['postgres'], { log });
	const owner = clusterOwner();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-postgres-'));
	const remove = () => fs.rmSync(dir, { recursive: true, force: true });
	try {
		if (owner.uid !== undefined) fs.chownSync(dir, owner.uid, owner.gid);
		const password = randomBytes(18).toString('base64url');
		const passwordFile = path.join(dir, 'password');
		fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
		if (owner.uid !== undefined) fs.chownSync(passwordFile, owner.uid, owner.gid);
		const data = path.join(dir, 'data');
		// The programs run with a clean, minimal environment: none of the caller's PG* settings.
		const env = { PATH: process.env.PATH, LANG: 'C', LC_ALL: 'C', HOME: dir };
		await runProgram(
			bin,
			'initdb',
			[
				'-D',
				data,
				'-U',
				DB_USER,
				`--pwfile=${passwordFile}`,
				'--auth=scram-sha-256',
				'--encoding=UTF8',
				'--no-locale',
				'--no-sync',
			],
			{ owner, env, what: 'initdb' },
		);
		fs.rmSync(passwordFile);

		const port = await findFreePort();
		const server = await startLongRunning(
			path.join(bin, 'postgres'),
			[
				'-D',
				data,
				'-p',
				String(port),
				'-c',
				'listen_addresses=127.0.0.1',
				'-c',
				`unix_socket_directories=${dir}`,
				'-c',
				'fsync=off',
				'-c',
				'synchronous_commit=off',
				'-c',
				'full_page_writes=off',
				'-c',
				'max_connections=200',
			],
			{
				name: 'postgres',
				cwd: dir,
				env,
				...owner,
				logFile: path.join(dir, 'postgres.log'),
				isReady: (output) => /database system is ready to accept connections/.test(output),
				// SIGINT is PostgreSQL's fast shutdown: open sessions are ended, not waited for.
				stopSignal: 'SIGINT',
				timeoutMs: 60_000,
			},
		);
		const clientEnv = { ...env, PGPASSWORD: password };
		return {
			host: '127.0.0.1',
			port,
			user: DB_USER,
			password,
			dir,
			logFile: server.logFile,
			/** Creates a database and returns the n8n settings (DB_*) that point at it. */
			async createDatabase(name) {
				await runProgram(
					bin,
					'createdb',
					['-h', '127.0.0.1', '-p', String(port), '-U', DB_USER, name],
					{ owner: {}, env: clientEnv, what: `createdb ${name}` },
				);
				return {
					DB_TYPE: 'postgresdb',
					DB_POSTGRESDB_HOST: '127.0.0.1',
					DB_POSTGRESDB_PORT: String(port),
					DB_POSTGRESDB_DATABASE: name,
					DB_POSTGRESDB_USER: DB_USER,
					DB_POSTGRESDB_PASSWORD: password,
				};
			},
			async stop() {
				await server.stop();
				remove();
			},
		};
	} catch (error) {
		remove();
		throw error;
	}
}
