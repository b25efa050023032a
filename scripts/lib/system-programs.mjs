// Programs the queue-mode tests need from the operating system (Redis; no npm package ships it):
// found on PATH or where Debian puts them, installed with apt-get when missing and the scripts run as
// root on Debian, otherwise a message that says what to install. PostgreSQL comes from the registry
// instead (postgres-install.mjs). Node built-ins only.

import fs from 'node:fs';
import path from 'node:path';

import { runCaptured, tail } from './processes.mjs';

/** Whether an executable file exists at this path. */
function isExecutable(file) {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

/** The first `name` on PATH, or undefined. */
export function onPath(name) {
	for (const dir of (process.env.PATH || '').split(path.delimiter)) {
		if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
	}
	return undefined;
}

/** What the queue-mode tests need, how to find it, and the Debian package that has it. */
export const PROGRAMS = Object.freeze({
	redis: {
		label: 'Redis (redis-server)',
		debianPackage: 'redis-server',
		find: () =>
			onPath('redis-server') ??
			(isExecutable('/usr/bin/redis-server') ? '/usr/bin/redis-server' : undefined),
	},
});

const isDebian = () => fs.existsSync('/etc/debian_version');
const isRoot = () => process.getuid?.() === 0;

function whatToInstall(missing) {
	const names = missing.map((program) => program.label).join(' and ');
	const packages = missing.map((program) => program.debianPackage).join(' ');
	return (
		`The queue-mode tests need ${names}, which this machine lacks. ` +
		`On Debian or Ubuntu: \`sudo apt-get install ${packages}\` (the tests install them themselves ` +
		'when they run as root on Debian). Elsewhere install Redis 6 or later so that redis-server is ' +
		'on PATH.'
	);
}

async function aptGet(args, log) {
	log(`apt-get ${args.join(' ')}`);
	return await runCaptured(
		'apt-get',
		// Another apt run (a second test run, unattended upgrades) holds the lock: wait for it.
		['-o', 'DPkg::Lock::Timeout=600', ...args],
		{
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			timeoutMs: 20 * 60 * 1000,
		},
	);
}

/**
 * The paths of the programs named (keys of PROGRAMS), installing their Debian packages with apt-get
 * when some are missing and this runs as root on Debian. Throws with what to install otherwise.
 * @param {Array<keyof typeof PROGRAMS>} names
 * @returns {Promise<Record<string, string>>} each name's path
 */
export async function ensurePrograms(names, { log = () => {} } = {}) {
	const find = () => Object.fromEntries(names.map((name) => [name, PROGRAMS[name].find()]));
	let found = find();
	const missing = () => names.filter((name) => !found[name]).map((name) => PROGRAMS[name]);
	if (!missing().length) return found;
	if (!isRoot() || !isDebian() || !onPath('apt-get')) throw new Error(whatToInstall(missing()));

	const packages = missing().map((program) => program.debianPackage);
	const install = ['install', '-y', '--no-install-recommends', ...packages];
	let result = await aptGet(install, log);
	if (
		result.code !== 0 &&
		/Unable to locate package|has no installation candidate/.test(result.output)
	) {
		// A fresh machine may not have read its package lists yet.
		const update = await aptGet(['update'], log);
		if (update.code !== 0) throw new Error(`apt-get update failed:\n${tail(update.output)}`);
		result = await aptGet(install, log);
	}
	if (result.code !== 0) {
		throw new Error(
			`apt-get install ${packages.join(' ')} failed (exit ${result.code}):\n${tail(result.output)}\n` +
				whatToInstall(missing()),
		);
	}
	found = find();
	if (missing().length)
		throw new Error(`installed ${packages.join(' ')}, yet: ${whatToInstall(missing())}`);
	return found;
}
