/**
 * `npm run release:check` (scripts/release-check.mjs), run as the publish workflow runs it: a real
 * process in a package folder, with the environment GitHub Actions gives a tag push.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts', 'release-check.mjs');
const REPOSITORY = 'n8n-nodes-voice-agent/n8n-nodes-voice-agent';

/** What GitHub Actions sets for a push of the tag `tag` in `repository`. */
const actionsEnv = (tag: string, repository = REPOSITORY) => ({
	GITHUB_ACTIONS: 'true',
	GITHUB_REPOSITORY: repository,
	GITHUB_REF_TYPE: 'tag',
	GITHUB_REF_NAME: tag,
});

const PACKAGE = {
	name: 'n8n-nodes-voice-agent',
	version: '0.2.0',
	private: true,
	homepage: `https://github.com/${REPOSITORY}#readme`,
	repository: { type: 'git', url: `git+https://github.com/${REPOSITORY}.git` },
	bugs: { url: `https://github.com/${REPOSITORY}/issues` },
};

const CHANGELOG = `# Changelog

## [Unreleased]

## [0.2.0] - 2026-12-01

### Added
- Something.

## [0.1.0] - 2026-11-23
`;

const folders: string[] = [];
afterAll(() => {
	for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

/** Runs the release check in `cwd`, or in a new package folder with this package.json and CHANGELOG.md (null: none). */
function releaseCheck(
	env: Record<string, string>,
	options: { pkg?: object; changelog?: string | null; cwd?: string } = {},
) {
	let folder = options.cwd;
	if (!folder) {
		folder = fs.mkdtempSync(path.join(os.tmpdir(), 'release-check-'));
		folders.push(folder);
		fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify(options.pkg ?? PACKAGE));
		const changelog = options.changelog === undefined ? CHANGELOG : options.changelog;
		if (changelog !== null) fs.writeFileSync(path.join(folder, 'CHANGELOG.md'), changelog);
	}
	const cleanEnv = Object.fromEntries(
		Object.entries(process.env).filter(([name]) => !name.startsWith('GITHUB_')),
	);
	const result = spawnSync(process.execPath, [SCRIPT], {
		cwd: folder,
		env: { ...cleanEnv, ...env },
		encoding: 'utf8',
	});
	return { code: result.status, out: result.stdout, err: result.stderr };
}

describe('release:check', () => {
	test('passes for a tag that matches package.json and the top released changelog entry, in the named repository', () => {
		const result = releaseCheck(actionsEnv('v0.2.0'));

		expect(result.err).toBe('');
		expect(result.code).toBe(0);
		expect(result.out).toContain(`n8n-nodes-voice-agent@0.2.0 from ${REPOSITORY}, tag v0.2.0: ok`);
	});

	test('the repository itself passes for the tag of its version, as the publish workflow will run it', () => {
		const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

		const result = releaseCheck(actionsEnv(`v${version}`), { cwd: ROOT });

		expect(result.err).toBe('');
		expect(result.code).toBe(0);
	});

	test('refuses outside GitHub Actions: a local release is not possible', () => {
		const result = releaseCheck({});

		expect(result.code).toBe(1);
		expect(result.err).toContain('refusing to release n8n-nodes-voice-agent@0.2.0');
		expect(result.err).toContain('not running in GitHub Actions');
		expect(result.err).toContain('not run for a tag');
	});

	test('refuses a tag that differs from package.json, naming both', () => {
		const result = releaseCheck(actionsEnv('v0.2.1'));

		expect(result.code).toBe(1);
		expect(result.err).toContain(
			"the tag v0.2.1 does not match package.json's version 0.2.0 (expected the tag v0.2.0)",
		);
	});

	test('refuses when the top released changelog entry is another version (Unreleased does not count)', () => {
		const changelog = CHANGELOG.replace('## [0.2.0] - 2026-12-01\n', '');

		const result = releaseCheck(actionsEnv('v0.2.0'), { changelog });

		expect(result.code).toBe(1);
		expect(result.err).toContain(
			"CHANGELOG.md's top released entry is 0.1.0, but package.json's version is 0.2.0",
		);
	});

	test('refuses without a changelog, or with one that has no released entry', () => {
		expect(releaseCheck(actionsEnv('v0.2.0'), { changelog: null }).err).toContain(
			'CHANGELOG.md is missing',
		);
		expect(
			releaseCheck(actionsEnv('v0.2.0'), { changelog: '# Changelog\n\n## [Unreleased]\n' }).err,
		).toContain('CHANGELOG.md has no released entry');
	});

	test('refuses when package.json names another repository than the one the workflow runs in', () => {
		const result = releaseCheck(actionsEnv('v0.2.0', 'someone-else/n8n-nodes-voice-agent'));

		expect(result.code).toBe(1);
		for (const field of ['repository', 'bugs', 'homepage']) {
			expect(result.err).toContain(`package.json's ${field} "`);
		}
		expect(result.err).toContain(
			`names ${REPOSITORY}, but the workflow runs in someone-else/n8n-nodes-voice-agent`,
		);
	});

	test('the repository names compare without regard to case, as GitHub compares them', () => {
		const result = releaseCheck(
			actionsEnv('v0.2.0', 'N8N-Nodes-Voice-Agent/N8N-Nodes-Voice-Agent'),
		);

		expect(result.code).toBe(0);
	});

	test('refuses when the repository fields are missing or are not GitHub URLs', () => {
		const { repository, bugs, ...rest } = PACKAGE;
		void repository;
		void bugs;

		const result = releaseCheck(actionsEnv('v0.2.0'), {
			pkg: { ...rest, homepage: 'https://www.npmjs.com/package/n8n-nodes-voice-agent' },
		});

		expect(result.code).toBe(1);
		expect(result.err).toContain(
			`package.json has no repository (expected git+https://github.com/${REPOSITORY}.git)`,
		);
		expect(result.err).toContain(
			`package.json has no bugs (expected https://github.com/${REPOSITORY}/issues)`,
		);
		expect(result.err).toContain(
			`package.json's homepage "https://www.npmjs.com/package/n8n-nodes-voice-agent" is not a GitHub repository URL`,
		);
	});

	test('refuses when the publish guard ("private": true) was taken out of package.json', () => {
		const result = releaseCheck(actionsEnv('v0.2.0'), { pkg: { ...PACKAGE, private: false } });

		expect(result.code).toBe(1);
		expect(result.err).toContain('package.json lacks "private": true');
	});
});

/** `toolProblems` of scripts/lib/release-tools.mjs for these tools, run as the release check runs it. */
function toolProblems(tools: object[]): string[] {
	const module = path.join(ROOT, 'scripts', 'lib', 'release-tools.mjs');
	const result = spawnSync(
		process.execPath,
		[
			'--input-type=module',
			'-e',
			`const { toolProblems } = await import(${JSON.stringify(module)}); console.log(JSON.stringify(toolProblems(${JSON.stringify(tools)})));`,
		],
		{ encoding: 'utf8' },
	);
	expect(result.stderr).toBe('');
	return JSON.parse(result.stdout) as string[];
}

describe("release:check -- --package: n8n's newest lint rules and scanner", () => {
	const CLI = '@n8n/node-cli';

	test('passes when the pinned and installed tools are the registry’s newest', () => {
		expect(
			toolProblems([{ name: CLI, pinned: '0.48.3', installed: '0.48.3', newest: '0.48.3' }]),
		).toEqual([]);
	});

	test('refuses an older pin, saying how to take the newest', () => {
		expect(
			toolProblems([{ name: CLI, pinned: '0.48.3', installed: '0.48.3', newest: '0.49.0' }]),
		).toEqual([
			"@n8n/node-cli is pinned at 0.48.3, but the registry's newest is 0.49.0: npm install --save-dev --save-exact @n8n/node-cli@0.49.0, run npm test, commit, then tag again",
		]);
	});

	test('refuses when the registry does not answer, when the tool is not a devDependency, or not installed as pinned', () => {
		expect(
			toolProblems([
				{ name: CLI, pinned: '0.48.3', installed: '0.48.3' },
				{ name: '@n8n/scan-community-package', newest: '0.32.0' },
				{ name: 'other', pinned: '1.0.0', installed: '0.9.0', newest: '1.0.0' },
			]),
		).toEqual([
			'the registry did not say which @n8n/node-cli is the newest: the release needs it to check with the newest rules',
			'@n8n/scan-community-package is not a devDependency: add it, pinned (npm install --save-dev --save-exact @n8n/scan-community-package@0.32.0, run npm test, commit, then tag again)',
			'other 1.0.0 is pinned, but 0.9.0 is installed: run npm ci',
		]);
	});

	test('the repository pins both tools exactly', () => {
		const { devDependencies } = JSON.parse(
			fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
		);
		for (const name of [CLI, '@n8n/scan-community-package'])
			expect(devDependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
	});
});

describe('publishing outside the workflow', () => {
	test("npm itself refuses to publish the package, even with the project's ignore-scripts setting", () => {
		// An unreachable registry with a token: npm gets as far as publishing, and the guard stops it.
		const result = spawnSync(
			'npm',
			[
				'publish',
				'--registry=http://127.0.0.1:9/',
				'--//127.0.0.1:9/:_authToken=not-a-token',
				'--fetch-retries=0',
				'--ignore-scripts=true',
			],
			{ cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_dry_run: 'false' } },
		);

		expect(result.status).not.toBe(0);
		expect(result.stderr).toContain('EPRIVATE');
	});

	test('the package npm would publish holds exactly dist/, the README, the LICENSE, the CHANGELOG and the third-party notices', () => {
		const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts=true'], {
			cwd: ROOT,
			encoding: 'utf8',
		});

		expect(result.status).toBe(0);
		const [packed] = JSON.parse(result.stdout);
		const paths: string[] = packed.files.map((file: { path: string }) => file.path);
		const topLevel = new Set(paths.map((file) => file.split('/')[0]));
		expect([...topLevel].sort()).toEqual([
			'CHANGELOG.md',
			'LICENSE.md',
			'README.md',
			// The Apache-2.0 notice of libphonenumber's time-zone data, which dist/ holds (Calling Hours).
			'THIRD_PARTY_NOTICES.md',
			'dist',
			'package.json',
		]);
		expect(paths).toContain('dist/nodes/VoiceAgent/VoiceAgent.node.js');
		expect(paths).toContain('dist/nodes/VoiceAgent/VoiceAgent.node.json');
	});
});
