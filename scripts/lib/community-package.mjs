// This repository as users get it: `npm pack`, then installed into an n8n user folder's
// `.n8n/nodes` the way n8n installs a community package. What is known about the package comes
// from `npm pack --json` or from the installed package's own package.json. Node built-ins only.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { cleanNpmEnv, NPM } from './npm.mjs';
import { runCaptured, tail } from './processes.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `npm pack` of a package folder (default: this repository; its dist/ must be built) into a new temp
 * folder. `files` lists what the tarball holds; `remove()` deletes the temp folder.
 * @returns {Promise<{ dir: string, tarball: string, name: string, version: string,
 *   files: string[], remove: () => void }>}
 */
export async function packPackage({ root = ROOT } = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-pack-'));
	const remove = () => fs.rmSync(dir, { recursive: true, force: true });
	try {
		const result = await runCaptured(NPM, ['pack', '--json', '--pack-destination', dir], {
			cwd: root,
			env: cleanNpmEnv(),
			timeoutMs: 120_000,
		});
		if (result.code !== 0)
			throw new Error(`npm pack failed (exit ${result.code}):\n${tail(result.output)}`);
		const [packed] = JSON.parse(result.stdout);
		const tarball = path.join(dir, packed.filename);
		if (!fs.existsSync(tarball))
			throw new Error(`npm pack reported ${packed.filename}, which is not in ${dir}`);
		const files = packed.files.map((file) => file.path);
		return { dir, tarball, name: packed.name, version: packed.version, files, remove };
	} catch (error) {
		remove();
		throw error;
	}
}

/** The name under which npm recorded a tarball in a package.json's dependencies. */
function dependencyNameOf(packageJsonPath, tarball) {
	const { dependencies = {} } = JSON.parse(fs.readFileSync(packageJsonPath, 'utf8'));
	const base = path.basename(tarball);
	return Object.keys(dependencies).find((name) => String(dependencies[name]).endsWith(base));
}

/**
 * Installs an `npm pack` tarball as a community package, the way n8n installs one: into
 * `<userFolder>/.n8n/nodes` with npm (`--legacy-peer-deps` so the peer n8n-workflow is not installed;
 * n8n brings its own). Do it before starting a server on the folder: n8n loads packages at start-up,
 * only those named `n8n-nodes-*` or `@scope/n8n-nodes-*`, as node types `<package name>.<node name>`.
 * Checks that every file the package's `n8n` section names was installed.
 * @returns {Promise<{ name: string, version: string, dir: string, nodeTypePrefix: string }>}
 */
export async function installPackage(userFolder, tarballPath) {
	const tarball = path.resolve(tarballPath);
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(manifest)) {
		const empty = { name: 'installed-nodes', private: true, dependencies: {} };
		fs.writeFileSync(manifest, `${JSON.stringify(empty, null, 2)}\n`);
	}
	const args = ['install', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund'];
	const result = await runCaptured(NPM, [...args, '--prefer-offline', tarball], {
		cwd: nodesDir,
		env: cleanNpmEnv(),
	});
	const name = result.code === 0 ? dependencyNameOf(manifest, tarball) : undefined;
	if (!name) {
		throw new Error(
			`npm install of ${tarball} into ${nodesDir} failed (exit ${result.code}):\n${tail(result.output)}`,
		);
	}
	const dir = path.join(nodesDir, 'node_modules', name);
	const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
	if (!/^(@[^/]+\/)?n8n-nodes-/.test(pkg.name)) {
		throw new Error(
			`n8n only loads community packages named n8n-nodes-* or @scope/n8n-nodes-*; got "${pkg.name}"`,
		);
	}
	const named = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	const missing = named.filter((file) => !fs.existsSync(path.join(dir, file)));
	if (!named.length || missing.length) {
		throw new Error(
			`the packed ${pkg.name} lacks ${missing.join(', ') || 'an n8n section naming its nodes'}: ` +
				'run `npm run build` and try again',
		);
	}
	return { name: pkg.name, version: pkg.version, dir, nodeTypePrefix: `${pkg.name}.` };
}
