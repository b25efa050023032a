// The tools n8n checks a community package with, as the release check runs them: the node-cli's lint
// rules (`n8n-node lint`) and n8n's scanner (`@n8n/scan-community-package`). Both are pinned
// devDependencies (they install on Node 20 with the project's `ignore-scripts`); at release time the
// pins must be the registry's newest, so that the package is checked with the rules n8n checks it with
// then. Node built-ins only.

import fs from 'node:fs';
import path from 'node:path';

import { cleanNpmEnv, NPM } from './npm.mjs';
import { runCaptured, tail } from './processes.mjs';

export const RELEASE_TOOLS = Object.freeze(['@n8n/node-cli', '@n8n/scan-community-package']);

/** How to bring a pin up to the registry's newest. */
const update = (name, version) =>
	`npm install --save-dev --save-exact ${name}@${version}, run npm test, commit, then tag again`;

/**
 * Every reason the tools would not check the release as n8n does now, in plain words; none: they do.
 * @param {Array<{ name: string, pinned?: string, installed?: string, newest?: string }>} tools
 */
export function toolProblems(tools) {
	const problems = [];
	for (const { name, pinned, installed, newest } of tools) {
		if (!pinned) {
			problems.push(
				`${name} is not a devDependency: add it, pinned (${update(name, newest ?? '<version>')})`,
			);
		} else if (!newest) {
			problems.push(
				`the registry did not say which ${name} is the newest: the release needs it to check with the newest rules`,
			);
		} else if (pinned !== newest) {
			problems.push(
				`${name} is pinned at ${pinned}, but the registry's newest is ${newest}: ${update(name, newest)}`,
			);
		} else if (installed !== pinned) {
			problems.push(
				`${name} ${pinned} is pinned, but ${installed ?? 'none'} is installed: run npm ci`,
			);
		}
	}
	return problems;
}

/** The version npm says is the newest (`latest`) of a package, or undefined when it cannot say. */
export async function newestVersion(name) {
	const result = await runCaptured(NPM, ['view', name, 'version', '--json'], {
		env: cleanNpmEnv(),
		timeoutMs: 60_000,
	});
	if (result.code !== 0) return undefined;
	try {
		return JSON.parse(result.stdout);
	} catch {
		return undefined;
	}
}

/** What the release needs to know of each tool: its pin, what is installed, the registry's newest. */
export async function releaseTools(root) {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	return await Promise.all(
		RELEASE_TOOLS.map(async (name) => {
			const manifest = path.join(root, 'node_modules', name, 'package.json');
			const installed = fs.existsSync(manifest)
				? JSON.parse(fs.readFileSync(manifest, 'utf8')).version
				: undefined;
			return {
				name,
				pinned: pkg.devDependencies?.[name],
				installed,
				newest: await newestVersion(name),
			};
		}),
	);
}

/** `n8n-node lint` (the node-cli's strict rules) over the package's sources: its output when it fails. */
export async function lintProblems(root) {
	const bin = path.join(root, 'node_modules', '.bin', 'n8n-node');
	const result = await runCaptured(bin, ['lint'], { cwd: root, timeoutMs: 600_000 });
	return result.code === 0
		? []
		: [`n8n-node lint failed (exit ${result.code}):\n${tail(result.output)}`];
}
