#!/usr/bin/env node
// `npm run release:check`: the gate of the publish workflow (.github/workflows/publish.yml), run in the
// package folder before the workflow lifts the publish guard. It refuses (exit 1, every reason listed)
// unless it runs in GitHub Actions for a version tag, package.json names the repository the workflow
// runs in (repository, bugs, homepage), and the tag, package.json's version and the CHANGELOG's top
// released entry are the same version. See RELEASING.md. Node built-ins only.
//
// `npm run release:check -- --package` (the publish job, after the build): the package as n8n checks
// it now, with the registry's newest tools: the pinned @n8n/node-cli and @n8n/scan-community-package
// must be the newest the registry has, `n8n-node lint` passes, and n8n's scanner passes on the packed
// tarball (scripts/lib/release-tools.mjs, scripts/lib/package-scan.mjs).

import fs from 'node:fs';
import path from 'node:path';

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
/** A released entry of a Keep a Changelog file: `## [1.2.3] - 2026-11-23`. */
const RELEASED_ENTRY = /^## \[([^\]]+)\] - (\d{4}-\d{2}-\d{2})\s*$/;

/**
 * The GitHub `owner/name` a repository, issues or home page URL points at, lower-cased (GitHub names
 * ignore case), or undefined for any other URL.
 */
export function githubRepositoryOf(url) {
	const match =
		/^(?:git\+)?https:\/\/github\.com\/([^/\s#?]+)\/([^/\s#?]+?)(?:\.git)?(?:\/issues)?\/?(?:#readme)?$/i.exec(
			String(url ?? ''),
		);
	return match ? `${match[1]}/${match[2]}`.toLowerCase() : undefined;
}

/** The first released entry of a changelog (Unreleased skipped): its version and date, or undefined. */
export function topReleasedEntry(changelog) {
	for (const line of changelog.split('\n')) {
		const match = RELEASED_ENTRY.exec(line);
		if (match) return { version: match[1], date: match[2] };
	}
	return undefined;
}

/** Every reason to refuse the release, in plain words; none means the release may go on. */
export function releaseProblems({ pkg, changelog, env }) {
	const problems = [];
	const repository = env.GITHUB_REPOSITORY;
	if (env.GITHUB_ACTIONS !== 'true' || !repository) {
		problems.push(
			'not running in GitHub Actions (GITHUB_ACTIONS, GITHUB_REPOSITORY): releases are published by .github/workflows/publish.yml only, with provenance; see RELEASING.md',
		);
	}
	const expected = repository?.toLowerCase();
	const repositoryUrl = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const fields = [
		['repository', repositoryUrl, `git+https://github.com/${repository ?? '<owner>/<name>'}.git`],
		[
			'bugs',
			pkg.bugs?.url ?? pkg.bugs,
			`https://github.com/${repository ?? '<owner>/<name>'}/issues`,
		],
		['homepage', pkg.homepage, `https://github.com/${repository ?? '<owner>/<name>'}#readme`],
	];
	for (const [field, value, example] of fields) {
		const named = githubRepositoryOf(value);
		if (!value) problems.push(`package.json has no ${field} (expected ${example})`);
		else if (!named)
			problems.push(
				`package.json's ${field} "${value}" is not a GitHub repository URL (expected ${example})`,
			);
		else if (expected && named !== expected)
			problems.push(
				`package.json's ${field} "${value}" names ${named}, but the workflow runs in ${repository}`,
			);
	}
	if (pkg.private !== true) {
		problems.push(
			'package.json lacks "private": true, the guard that makes npm refuse a publish outside the workflow (the workflow lifts it after this check)',
		);
	}

	const version = pkg.version;
	if (!SEMVER.test(String(version ?? '')))
		problems.push(`package.json's version "${version}" is not a SemVer version`);
	if (env.GITHUB_REF_TYPE !== 'tag' || !env.GITHUB_REF_NAME) {
		problems.push(
			'not run for a tag (GITHUB_REF_TYPE, GITHUB_REF_NAME): the workflow publishes version tags like v1.2.3',
		);
	} else if (env.GITHUB_REF_NAME !== `v${version}`) {
		problems.push(
			`the tag ${env.GITHUB_REF_NAME} does not match package.json's version ${version} (expected the tag v${version})`,
		);
	}
	if (changelog === undefined) {
		problems.push('CHANGELOG.md is missing');
	} else {
		const top = topReleasedEntry(changelog);
		if (!top) problems.push('CHANGELOG.md has no released entry ("## [1.2.3] - YYYY-MM-DD")');
		else if (top.version !== version)
			problems.push(
				`CHANGELOG.md's top released entry is ${top.version}, but package.json's version is ${version}`,
			);
	}
	return problems;
}

function readPackage(root) {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const changelogPath = path.join(root, 'CHANGELOG.md');
	const changelog = fs.existsSync(changelogPath)
		? fs.readFileSync(changelogPath, 'utf8')
		: undefined;
	return { pkg, changelog };
}

/** The package as n8n checks it now: the newest tools, their lint, their scanner on the tarball. */
async function packageProblems(root) {
	// Loaded here: the metadata check needs nothing installed.
	const { lintProblems, releaseTools, toolProblems } = await import('./lib/release-tools.mjs');
	const { scanPackage } = await import('./lib/package-scan.mjs');
	const tools = await releaseTools(root);
	const problems = toolProblems(tools);
	if (problems.length > 0) return { tools, problems };
	problems.push(...(await lintProblems(root)));
	const scan = await scanPackage({ root, sources: false });
	for (const { label, passed, message, details } of scan.results) {
		if (!passed) problems.push(`n8n's scanner refuses the ${label}: ${message}\n${details ?? ''}`);
	}
	return { tools, problems, scan };
}

const isMain =
	process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname;
if (isMain && process.argv.includes('--package')) {
	const root = process.cwd();
	const { tools, problems, scan } = await packageProblems(root);
	const versions = tools.map(({ name, installed }) => `${name} ${installed}`).join(', ');
	if (problems.length > 0) {
		console.error(`release check: the package is not ready to release (${versions}):`);
		for (const problem of problems) console.error(`  - ${problem}`);
		process.exitCode = 1;
	} else {
		console.log(
			`release check: ${scan.tarball} (${scan.files} files) passes n8n-node lint and n8n's scanner, with the registry's newest ${versions}: ok`,
		);
	}
} else if (isMain) {
	const root = process.cwd();
	const { pkg, changelog } = readPackage(root);
	const problems = releaseProblems({ pkg, changelog, env: process.env });
	if (problems.length > 0) {
		console.error(`release check: refusing to release ${pkg.name}@${pkg.version}:`);
		for (const problem of problems) console.error(`  - ${problem}`);
		process.exitCode = 1;
	} else {
		console.log(
			`release check: ${pkg.name}@${pkg.version} from ${process.env.GITHUB_REPOSITORY}, tag ${process.env.GITHUB_REF_NAME}: ok`,
		);
	}
}
