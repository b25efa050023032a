/**
 * The GitHub Actions workflows, as GitHub's own workflow parser reads them (scripts/check-workflows.mjs,
 * @actions/workflow-parser): valid, running exactly the README's set-up and test commands, and
 * publishing only after the checks, with the least privilege each job needs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CHECK = path.join(ROOT, 'scripts', 'check-workflows.mjs');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, string>;
}
interface Job {
	needs?: string[];
	permissions?: Record<string, string>;
	container?: { image: string };
	steps: Step[];
}
interface Workflow {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<string, Job>;
}

function checkWorkflows(args: string[]) {
	const result = spawnSync(process.execPath, [CHECK, ...args], { cwd: ROOT, encoding: 'utf8' });
	return { code: result.status, out: result.stdout, err: result.stderr };
}

const parsed = checkWorkflows(['--json']);
const workflows: Record<string, Workflow> = parsed.code === 0 ? JSON.parse(parsed.out) : {};
const ci = workflows['ci.yml'];
const publish = workflows['publish.yml'];

/** The commands `.ci/run` runs: the README's set-up and test commands. */
const CI_RUN_COMMANDS = fs
	.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
	.split('\n')
	.map((line) => line.trim())
	.filter((line) => /^npm /.test(line));

const runs = (job: Job) => job.steps.filter((step) => step.run).map((step) => step.run!.trim());

describe('the workflow files', () => {
	test("GitHub's workflow parser accepts ci.yml and publish.yml", () => {
		const result = checkWorkflows([]);

		expect(result.err).toBe('');
		expect(result.code).toBe(0);
		expect(result.out).toContain('.github/workflows/ci.yml ok (2 jobs)');
		expect(result.out).toContain('.github/workflows/publish.yml ok (3 jobs)');
		expect(Object.keys(workflows).sort()).toEqual(['ci.yml', 'publish.yml']);
	});

	test('the parser rejects a broken workflow, naming the line: the check is real', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workflows-'));
		const file = path.join(dir, 'broken.yml');
		fs.writeFileSync(
			file,
			'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    stepz: []\n    steps:\n      - run: echo ${{ secretz.TOKEN }}\n',
		);
		try {
			const result = checkWorkflows([file]);

			expect(result.code).toBe(1);
			expect(result.err).toContain("(Line: 5, Col: 5): Unexpected value 'stepz'");
			expect(result.err).toContain("Unrecognized named-value: 'secretz'");
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('ci.yml', () => {
	test(".ci/run runs the README's set-up and test commands, and the README states each of them", () => {
		expect(CI_RUN_COMMANDS).toEqual(['npm ci', 'npm test', 'npm run test:e2e']);
		const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
		for (const command of CI_RUN_COMMANDS)
			expect(readme).toMatch(new RegExp(`^${command}\\b`, 'm'));
	});

	test('runs on pushes and pull requests with read-only access', () => {
		expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
		expect(ci.permissions).toEqual({ contents: 'read' });
	});

	test('runs exactly the commands of .ci/run, the end-to-end suites in their own job', () => {
		const commands = Object.values(ci.jobs).flatMap(runs);
		expect(commands.sort()).toEqual(['npm ci', 'npm ci', 'npm run test:e2e', 'npm test']);
		expect(runs(ci.jobs.test)).toEqual(['npm ci', 'npm test']);
		expect(runs(ci.jobs.e2e)).toEqual(['npm ci', 'npm run test:e2e']);
	});

	test('caches the pinned n8n runtimes, keyed by their pins', () => {
		const cache = ci.jobs.e2e.steps.find((step) => step.uses?.startsWith('actions/cache@'));

		expect(cache?.with).toEqual({
			path: '~/.cache/n8n-nodes-voice-agent',
			key: "n8n-runtimes-${{ runner.os }}-${{ hashFiles('scripts/lib/runtime-pins.mjs') }}",
		});
		// The cache is restored before the tests install the runtimes.
		const order = ci.jobs.e2e.steps.map((step) => step.uses ?? step.run);
		expect(order.indexOf(cache!.uses)).toBeLessThan(order.indexOf('npm run test:e2e'));
	});
});

describe('publish.yml', () => {
	test('publishes on version tags only', () => {
		expect(publish.on).toEqual({ push: { tags: ['v*.*.*'] } });
	});

	test('grants nothing by default; each job only what it needs, id-token only to the publish job', () => {
		expect(publish.permissions).toEqual({});
		expect(publish.jobs.test.permissions).toEqual({ contents: 'read' });
		expect(publish.jobs.e2e.permissions).toEqual({ contents: 'read' });
		expect(publish.jobs.publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	});

	test('runs the same checks as CI, with the same runtime cache, before it publishes', () => {
		expect(runs(publish.jobs.test)).toEqual(['npm ci', 'npm run release:check', 'npm test']);
		expect(runs(publish.jobs.e2e)).toEqual(runs(ci.jobs.e2e));
		expect(publish.jobs.e2e.steps).toEqual(ci.jobs.e2e.steps);
		expect(publish.jobs.e2e.container).toEqual(ci.jobs.e2e.container);
		expect(publish.jobs.publish.needs).toEqual(['test', 'e2e']);
	});

	test("checks the release, checks the built package with n8n's newest lint rules and scanner, then lifts the publish guard, then publishes with provenance", () => {
		expect(runs(publish.jobs.publish)).toEqual([
			'npm ci',
			'npm run release:check',
			'npm run build',
			'npm run release:check -- --package',
			'npm pkg delete private',
			'npm publish --provenance --access public',
		]);
		const setup = publish.jobs.publish.steps.find((step) =>
			step.uses?.startsWith('actions/setup-node@'),
		);
		expect(setup?.with?.['registry-url']).toBe('https://registry.npmjs.org');
	});

	test('holds no npm token: it publishes through npm trusted publishing', () => {
		const text = fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'publish.yml'), 'utf8');
		expect(text).not.toMatch(/secrets\./);
		expect(text).not.toMatch(/NODE_AUTH_TOKEN|NPM_TOKEN/);
	});
});
