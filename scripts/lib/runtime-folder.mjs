// The layout of one installed runtime's folder: where Node and n8n are, the install log, and the
// marker written last that says the install finished. Node built-ins only.

import fs from 'node:fs';
import path from 'node:path';

import { majorOf, runtimeDir, runtimeKey, selectRuntime } from './runtime-pins.mjs';

export const MARKER = '.runtime-complete.json';

/** Where everything of a runtime is (whether installed or not). */
export function runtimeLayout(pin) {
	const dir = runtimeDir(pin);
	const nodeDir = path.join(dir, 'node_modules', pin.nodePackage);
	const n8nDir = path.join(dir, 'node_modules', 'n8n');
	return {
		dir,
		nodeDir,
		node: path.join(nodeDir, 'bin', 'node'),
		n8nDir,
		n8n: path.join(n8nDir, 'bin', 'n8n'),
		marker: path.join(dir, MARKER),
		log: path.join(dir, 'install.log'),
	};
}

export function isComplete(pin) {
	const layout = runtimeLayout(pin);
	let marker;
	try {
		marker = JSON.parse(fs.readFileSync(layout.marker, 'utf8'));
	} catch {
		return false;
	}
	return marker.key === runtimeKey(pin) && fs.existsSync(layout.node) && fs.existsSync(layout.n8n);
}

/** What callers use of a runtime: its paths and versions. */
export function describeRuntime(pin) {
	const { dir, node, n8n, nodeDir, n8nDir } = runtimeLayout(pin);
	return {
		dir,
		node,
		n8n,
		nodeDir,
		n8nDir,
		version: pin.n8n,
		major: majorOf(pin),
		nodeVersion: pin.node,
	};
}

/**
 * The installed runtime for a version spec (see selectRuntime; default: VOICE_AGENT_N8N_VERSION or
 * the default pin). Throws, saying how to install it, when it is missing or incomplete.
 * @returns {ReturnType<typeof describeRuntime>}
 */
export function runtimePaths(spec) {
	const pin = selectRuntime(spec);
	if (!isComplete(pin)) {
		throw new Error(
			`The pinned n8n runtime (n8n ${pin.n8n}, Node ${pin.node}) is not installed in ${runtimeDir(pin)}. ` +
				`Run \`node scripts/n8n-runtime.mjs install --n8n ${pin.n8n}\` first.`,
		);
	}
	return describeRuntime(pin);
}
