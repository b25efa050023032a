// A throwaway PostgreSQL for n8n's queue mode: a new cluster in a temp folder, a free port on
// 127.0.0.1, one password-protected user and its databases, stopped and removed afterwards. The
// server is the pinned PostgreSQL from the registry (postgres-install.mjs), a version n8n supports.
//
// PostgreSQL refuses to run as root. Run by a normal user, the cluster is that user's; run as root
// (CI machines), it belongs to the `postgres` system user (created when missing, as Debian's package
// would), and the server programs run as that user (Node's spawn with uid/gid; no sudo). That user
// cannot reach root's cache folder, so as root the programs are copied into the cluster's folder
// first. Node built-ins only.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startLongRunning } from './long-running.mjs';
import { ensurePostgres } from './postgres-install.mjs';
import { findFreePort, runCaptured, tail } from './processes.mjs';

const SERVICE_USER = 'postgres';
const DB_USER = 'n8n';

const passwdEntry = () => {
	const entry = spawnSync('getent', ['passwd', SERVICE_USER], { encoding: 'utf8' });
	return entry.status === 0 ? entry.stdout.trim().split(':') : [];
};

/** uid and gid of the user the cluster runs as: none (this process's) unless this runs as root. */
function clusterOwner() {
	if (process.getuid?.() !== 0) return {};
	let fields = passwdEntry();
	if (fields.length < 4) {
		// The system user Debian's postgresql package would create: no home, no login.
		spawnSync(
			'useradd',
			[
				'--system',
				'--user-group',
				'--no-create-home',
				'--home-dir',
				'/nonexistent',
				'--shell',
				'/usr/sbin/nologin',
				SERVICE_USER,
			],
			{ stdio: 'ignore' },
		);
		fields = passwdEntry();
	}
	if (fields.length < 4) {
		throw new Error(
			`PostgreSQL refuses to run as root, and there is no "${SERVICE_USER}" user to run it as ` +
				'(`useradd --system postgres` failed). Run the tests as a normal user, or create that user.',
		);
	}
	return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** The programs' tree as the owner can reach it: as root, a copy inside the cluster's folder. */
function reachableInstall(native, owner, dir) {
	if (owner.uid === undefined) return native;
	const copy = path.join(dir, 'postgresql');
	// Static libraries, headers and build files are not needed to run a server.
	const needed = (source) => !/\.a$|[/\\]pgxs([/\\]|$)|[/\\]include([/\\]|$)/.test(source);
	fs.cpSync(native, copy, { recursive: true, verbatimSymlinks: true, filter: needed });
	return copy;
}

/** Runs a PostgreSQL program to its end, as the cluster's owner; throws with its output if it fails. */
async function runProgram(bin, program, args, { owner, env, what, input }) {
	const result = await runCaptured(path.join(bin, program), args, {
		env,
		timeoutMs: 120_000,
		input,
		...owner,
	});
	if (result.code !== 0)
		throw new Error(`${what} failed (exit ${result.code}):\n${tail(result.output)}`);
	return result;
}

/**
 * Starts a new PostgreSQL cluster of the pinned version (installed first when missing) with the
 * databases named. `settingsFor(name)` gives n8n's DB_* settings for one of them. Durability is off
 * (fsync, synchronous commit): the data is thrown away anyway.
 * @param {{ databases?: string[], log?: (line: string) => void }} [options]
 */
export async function startPostgres({ databases = ['n8n'], log } = {}) {
	const installed = await ensurePostgres({ log });
	const owner = clusterOwner();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-postgres-'));
	const remove = () => fs.rmSync(dir, { recursive: true, force: true });
	try {
		if (owner.uid !== undefined) fs.chownSync(dir, owner.uid, owner.gid);
		const bin = path.join(reachableInstall(installed.native, owner, dir), 'bin');
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
		// The package ships no client programs (createdb, psql): the databases are made in
		// single-user mode, before the server starts.
		for (const name of databases) {
			if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
			await runProgram(bin, 'postgres', ['--single', '-D', data, '-F', 'postgres'], {
				owner,
				env,
				what: `CREATE DATABASE ${name}`,
				input: `CREATE DATABASE ${name};\n`,
			});
		}

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
		return {
			host: '127.0.0.1',
			port,
			user: DB_USER,
			password,
			version: installed.version,
			dir,
			logFile: server.logFile,
			/** n8n's settings (DB_*) for one of the databases made at the start. */
			settingsFor(name) {
				if (!databases.includes(name)) throw new Error(`no database ${name} was made`);
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
