// A real browser for the n8n editor: Debian's Chromium driven by playwright-core. Shared by the
// browser suite (test/e2e/editor.e2e.test.mjs) and `npm run screenshots`.
//
// Chromium comes from the system, not from a download at install time: CHROMIUM_PATH names a
// binary, otherwise /usr/bin/chromium is used, and it is installed with apt when it is missing and
// this runs as root on Debian. Anywhere else the run stops and says what to install.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM_ENV = 'CHROMIUM_PATH';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-dev-shm-usage',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
export const VIEWPORT = Object.freeze({ width: 1440, height: 900 });

function isDebian() {
	try {
		return /^ID(_LIKE)?=.*debian/m.test(fs.readFileSync('/etc/os-release', 'utf8'));
	} catch {
		return false;
	}
}

function aptGet(args, log) {
	log(`apt-get ${args.join(' ')}`);
	const result = spawnSync('apt-get', args, {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		encoding: 'utf8',
		timeout: 15 * 60_000,
	});
	if (result.status !== 0) {
		const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').slice(-15).join('\n');
		throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status}):\n${output}`);
	}
}

/**
 * The Chromium binary to drive: CHROMIUM_PATH, or Debian's /usr/bin/chromium, installed with apt
 * when missing on Debian as root. Throws a message that says what to install otherwise.
 * @param {{ log?: (line: string) => void }} [options]
 */
export function ensureChromium({ log = () => {} } = {}) {
	const named = process.env[CHROMIUM_ENV];
	if (named) {
		if (!fs.existsSync(named)) throw new Error(`${CHROMIUM_ENV}=${named}: no such file`);
		return named;
	}
	if (fs.existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
	const root = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isDebian() || !root) {
		throw new Error(
			`The browser tests need Chromium, and there is none at ${DEBIAN_CHROMIUM}. ` +
				'On Debian or Ubuntu: `sudo apt-get install -y chromium`; elsewhere install Chromium ' +
				`and set ${CHROMIUM_ENV} to its binary.`,
		);
	}
	log('Chromium is missing: installing Debian\'s "chromium" package with apt (a few minutes)');
	aptGet(['update', '-q'], log);
	aptGet(
		['install', '-y', '-q', '-o', 'DPkg::Lock::Timeout=600', '--no-install-recommends', 'chromium'],
		log,
	);
	if (!fs.existsSync(DEBIAN_CHROMIUM)) {
		throw new Error(`apt-get installed "chromium", but ${DEBIAN_CHROMIUM} is still missing`);
	}
	return DEBIAN_CHROMIUM;
}
