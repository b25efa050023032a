#!/usr/bin/env node
// The pinned real n8n runtimes for the e2e tests and the demo (pins: scripts/lib/runtime-pins.mjs).
//
//   node scripts/n8n-runtime.mjs install [--n8n VERSION] [--force]   install (or reuse) Node + n8n
//   node scripts/n8n-runtime.mjs path [--n8n VERSION]                the runtime's paths as JSON
//                                                                    (exit 1 if not installed)
//   node scripts/n8n-runtime.mjs pins                                the pinned runtimes as JSON
//
// VERSION is a pinned version or a line of one (`2.41.1`, `1.123.x`, `1`); without --n8n, the
// VOICE_AGENT_N8N_VERSION environment variable, else the default (the first pin). Each runtime has
// its own folder ~/.cache/n8n-nodes-voice-agent/n8n-runtime-<key> (VOICE_AGENT_N8N_CACHE names
// another parent folder). Nothing is written into the repository.

import { isComplete, runtimePaths } from './lib/runtime-folder.mjs';
import { ensureRuntime } from './lib/runtime-install.mjs';
import {
	CACHE_ENV,
	cacheRoot,
	DEFAULT_RUNTIME,
	RUNTIMES,
	runtimeDir,
	runtimeKey,
	VERSION_ENV,
} from './lib/runtime-pins.mjs';

const USAGE =
	'usage: node scripts/n8n-runtime.mjs <install [--n8n VERSION] [--force] | path [--n8n VERSION] | pins>';

function parseArgs(args) {
	const options = { force: false, version: undefined };
	for (let index = 0; index < args.length; index++) {
		const arg = args[index];
		if (arg === '--force') options.force = true;
		else if (arg === '--n8n') options.version = args[++index];
		else if (arg.startsWith('--n8n=')) options.version = arg.slice('--n8n='.length);
		else throw new Error(`unknown argument "${arg}"\n${USAGE}`);
	}
	if (options.version === '') throw new Error(`--n8n needs a version\n${USAGE}`);
	return options;
}

async function main([command, ...rest]) {
	const options = parseArgs(rest);
	switch (command) {
		case 'install': {
			const started = Date.now();
			const runtime = await ensureRuntime({
				version: options.version,
				force: options.force,
				log: (line) => console.log(`[n8n-runtime] ${line}`),
			});
			const what = `n8n ${runtime.version} (Node ${runtime.nodeVersion})`;
			console.log(
				runtime.installed
					? `[n8n-runtime] installed ${what} in ${runtime.dir} in ${((Date.now() - started) / 1000).toFixed(0)} s`
					: `[n8n-runtime] ${what} is installed in ${runtime.dir}`,
			);
			return 0;
		}
		case 'path':
			try {
				console.log(JSON.stringify(runtimePaths(options.version), null, 2));
				return 0;
			} catch (error) {
				console.error(error.message);
				return 1;
			}
		case 'pins': {
			const runtimes = RUNTIMES.map((pin) => ({
				...pin,
				default: pin === DEFAULT_RUNTIME,
				key: runtimeKey(pin),
				dir: runtimeDir(pin),
				installed: isComplete(pin),
			}));
			const env = { version: VERSION_ENV, cache: CACHE_ENV };
			console.log(JSON.stringify({ runtimes, cacheRoot: cacheRoot(), env }, null, 2));
			return 0;
		}
		default:
			console.error(USAGE);
			return 2;
	}
}

main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	(error) => {
		console.error(`[n8n-runtime] ${error.message}`);
		process.exitCode = 1;
	},
);
