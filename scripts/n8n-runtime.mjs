#!/usr/bin/env node
// The pinned real n8n runtime for the e2e tests and the demo (pins: scripts/lib/n8n-runtime.mjs).
//
//   node scripts/n8n-runtime.mjs install   install (or reuse) Node 24 + n8n in the cache folder
//   node scripts/n8n-runtime.mjs path      print the runtime's paths as JSON (exit 1 if not installed)
//   node scripts/n8n-runtime.mjs pins      print the pins and the cache folder as JSON
//
// The cache folder is ~/.cache/n8n-nodes-voice-agent/n8n-runtime-<key> unless VOICE_AGENT_N8N_CACHE
// names another parent folder. Nothing is written into the repository.

import {
	CACHE_ENV,
	PINS,
	cacheRoot,
	ensureRuntime,
	runtimeDir,
	runtimeKey,
	runtimePaths,
} from './lib/n8n-runtime.mjs';

const [command, ...rest] = process.argv.slice(2);

async function main() {
	switch (command) {
		case 'install': {
			const force = rest.includes('--force');
			const rt = await ensureRuntime({ force, log: (l) => console.log(`[n8n-runtime] ${l}`) });
			console.log(
				rt.installed
					? `[n8n-runtime] installed n8n ${rt.version} (Node ${rt.nodeVersion}) in ${rt.dir}`
					: `[n8n-runtime] n8n ${rt.version} (Node ${rt.nodeVersion}) already installed in ${rt.dir}`,
			);
			return 0;
		}
		case 'path': {
			try {
				console.log(JSON.stringify(runtimePaths(), null, 2));
				return 0;
			} catch (err) {
				console.error(err.message);
				return 1;
			}
		}
		case 'pins':
			console.log(
				JSON.stringify(
					{
						pins: PINS,
						key: runtimeKey(),
						cacheRoot: cacheRoot(),
						dir: runtimeDir(),
						cacheEnv: CACHE_ENV,
					},
					null,
					2,
				),
			);
			return 0;
		default:
			console.error('usage: node scripts/n8n-runtime.mjs <install [--force] | path | pins>');
			return 2;
	}
}

main().then(
	(code) => {
		process.exitCode = code;
	},
	(err) => {
		console.error(`[n8n-runtime] ${err.message}`);
		process.exitCode = 1;
	},
);
