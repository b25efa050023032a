#!/usr/bin/env node
// The review's mutants (listed-mutants.mjs) against the tests: each is applied to its own copy of the built
// package (dist/, from `npm run build`), and one of its killers must fail on it. Exits 1 when a mutant survives,
// when a patch no longer applies (re-write it against the code as it is now), or, with --baseline, when a killer
// fails on the unmutated build (then nothing it says about a mutant counts).
//
//   node scripts/mutation/check-listed-mutants.mjs [--only id,id] [--killer part-of-path] [--baseline]
//                                                  [--all-killers] [--discover]
//
// Each mutant's killers run cheapest first, until one fails; --all-killers runs every one of them and says
// which failed (the property run and the named test, for the report). --discover runs every test of
// scope.mjs's KILLING_TESTS on each mutant and prints which fail: for choosing killers. Property suites run at
// their default runs from their fixed seed, without shrinking (VOICE_AGENT_PROPERTY_NO_SHRINK): a failure is a
// kill, its smallest form is not needed here. VOICE_AGENT_MUTATION_PARALLEL mutants are tested at once (2).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { LISTED_MUTANTS } from './listed-mutants.mjs';
import { KILLING_TESTS } from './scope.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : undefined;
const killerFilter = args.includes('--killer') ? args[args.indexOf('--killer') + 1] : undefined;
const PARALLEL = Number(process.env.VOICE_AGENT_MUTATION_PARALLEL ?? 2);
/** A killer run that takes longer than this has hung on the mutant: that is a kill (a test would time out). */
const RUN_LIMIT_MS = 20 * 60_000;
const SKIPPED_IN_COPY = new Set(['node_modules', '.git', '.stryker-tmp', 'reports', 'coverage']);

/** A copy of the repository with its built dist/, node_modules linked: mutants never touch the worktree. */
function copyOfRepository() {
	const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-listed-mutants-'));
	for (const entry of fs.readdirSync(ROOT)) {
		if (SKIPPED_IN_COPY.has(entry)) continue;
		fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
	}
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
	return copy;
}

function builtFiles(dir) {
	return fs
		.readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
		.map((entry) => path.join(entry.parentPath, entry.name));
}

/** Applies the mutant's edits to the copy's dist/: each must match exactly one place. */
function apply(copy, mutant) {
	const files = builtFiles(path.join(copy, 'dist', 'nodes'));
	for (const edit of mutant.edits) {
		const global = new RegExp(edit.find.source, 'g');
		const hits = files.flatMap((file) =>
			[...fs.readFileSync(file, 'utf8').matchAll(global)].map(() => file),
		);
		if (hits.length !== 1)
			throw new Error(
				`Listed mutant ${mutant.id}: ${edit.find} matches ${hits.length} places in dist/nodes (must be exactly one): re-write it against the code as it is now (scripts/mutation/listed-mutants.mjs)`,
			);
		fs.writeFileSync(hits[0], fs.readFileSync(hits[0], 'utf8').replace(edit.find, edit.replace));
	}
}

/**
 * Runs Jest in `copy` on `files` (with -t `name`): its failed tests, or why it could not tell. No --bail:
 * Jest then exits before it writes its result file.
 */
function runJest(copy, files, { name } = {}) {
	const output = path.join(copy, `jest-result-${Math.random().toString(36).slice(2)}.json`);
	const jestArgs = [
		path.join(copy, 'node_modules', 'jest', 'bin', 'jest.js'),
		'--ci',
		// A mutant may leave a wait running after its test failed: the result is in, Jest need not wait for it.
		'--forceExit',
		'--json',
		`--outputFile=${output}`,
		`--maxWorkers=${files.length > 1 ? 2 : 1}`,
		...(name ? ['-t', name] : []),
		...files,
	];
	const started = Date.now();
	return new Promise((resolve) => {
		let stderr = '';
		const child = spawn(process.execPath, jestArgs, {
			cwd: copy,
			env: { ...process.env, VOICE_AGENT_PROPERTY_NO_SHRINK: '1', N8N_USER_FOLDER: '' },
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
		const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
		child.on('close', (code, signal) => {
			clearTimeout(limit);
			const seconds = Math.round((Date.now() - started) / 1000);
			if (signal === 'SIGKILL') return resolve({ hung: true, failed: [], ran: 1, seconds });
			if (!fs.existsSync(output))
				return resolve({ error: `Jest wrote no result (exit ${code}): ${stderr}`, seconds });
			const result = JSON.parse(fs.readFileSync(output, 'utf8'));
			const failed = result.testResults.flatMap((suite) =>
				suite.assertionResults
					.filter((test) => test.status === 'failed')
					.map((test) => ({
						file: path.relative(copy, suite.name),
						test: test.fullName,
						why:
							(test.failureMessages[0] ?? '').split('\n').find((line) => line.trim() !== '') ?? '',
					})),
			);
			const broken = result.testResults
				.filter((suite) => suite.assertionResults.length === 0 && suite.status === 'failed')
				.map(
					(suite) =>
						`${path.relative(copy, suite.name)}: ${suite.message.split('\n').slice(0, 3).join(' ')}`,
				);
			resolve({ failed, broken, ran: result.numPassedTests + result.numFailedTests, seconds });
		});
	});
}

/** Tests one mutant in a copy of its own; the lines to print, and whether a killer failed. */
async function test(mutant) {
	const copy = copyOfRepository();
	const lines = [];
	try {
		apply(copy, mutant);
		if (flag('--discover')) {
			const run = await runJest(copy, KILLING_TESTS, {});
			const killers = [...new Set((run.failed ?? []).map((failed) => failed.file))];
			lines.push(
				`${mutant.id}: ${run.hung ? 'hung' : killers.length > 0 ? `killed by ${killers.join(', ')}` : 'SURVIVED'} (${run.seconds} s)`,
			);
			for (const failed of run.failed ?? [])
				lines.push(`    ${failed.file} › ${failed.test}\n      ${failed.why}`);
			for (const line of run.broken ?? []) lines.push(`    broken: ${line}`);
			if (run.error) lines.push(`    ${run.error}`);
			return { lines, killed: run.hung || (run.failed ?? []).length > 0 };
		}
		const killedBy = [];
		const notBy = [];
		for (const killer of mutant.killers.filter(
			(each) => !killerFilter || each.file.includes(killerFilter),
		)) {
			if (!fs.existsSync(path.join(copy, killer.file)))
				throw new Error(`${mutant.id}: its killer ${killer.file} does not exist`);
			const run = await runJest(copy, [killer.file], { name: killer.name });
			const label = `${killer.file}${killer.name ? ` › ${killer.name}` : ''}`;
			if (run.error) throw new Error(`${mutant.id}: ${run.error}`);
			if (run.ran === 0) throw new Error(`${mutant.id}: no test of ${label} ran`);
			if (run.hung) killedBy.push(`${label} (hung past ${RUN_LIMIT_MS / 60_000} min)`);
			else if (run.failed.length > 0)
				killedBy.push(
					`${run.failed[0].file} › ${run.failed[0].test} (${run.seconds} s): ${run.failed[0].why}`,
				);
			else notBy.push(`${label} (${run.seconds} s)`);
			if (killedBy.length > 0 && !flag('--all-killers')) break;
		}
		lines.push(`${killedBy.length > 0 ? 'killed  ' : 'SURVIVED'} ${mutant.id}: ${mutant.what}`);
		for (const by of killedBy) lines.push(`         by ${by}`);
		for (const by of notBy) lines.push(`         not by ${by}`);
		return { lines, killed: killedBy.length > 0 };
	} finally {
		fs.rmSync(copy, { recursive: true, force: true });
	}
}

if (!fs.existsSync(path.join(ROOT, 'dist', 'nodes')))
	throw new Error('dist/ is missing: run `npm run build` first');
const mutants = LISTED_MUTANTS.filter((mutant) => !only || only.includes(mutant.id));
if (flag('--baseline')) {
	const copy = copyOfRepository();
	try {
		const files = [
			...new Set(mutants.flatMap((mutant) => mutant.killers.map((killer) => killer.file))),
		];
		const baseline = await runJest(copy, files, {});
		console.log(`baseline: ${baseline.ran ?? 0} tests in ${baseline.seconds} s`);
		if (
			baseline.error ||
			baseline.hung ||
			baseline.failed.length > 0 ||
			baseline.broken.length > 0
		) {
			console.log(JSON.stringify(baseline, null, 2));
			throw new Error(
				'The killers fail without a mutant: fix them first, a kill means nothing now',
			);
		}
	} finally {
		fs.rmSync(copy, { recursive: true, force: true });
	}
}
const started = Date.now();
let survived = 0;
const queue = [...mutants];
await Promise.all(
	Array.from({ length: Math.max(1, PARALLEL) }, async () => {
		for (let mutant = queue.shift(); mutant; mutant = queue.shift()) {
			const { lines, killed } = await test(mutant);
			if (!killed) survived++;
			console.log(lines.join('\n'));
		}
	}),
);
console.log(
	`${mutants.length - survived} of ${mutants.length} listed mutants killed (${Math.round((Date.now() - started) / 1000)} s)`,
);
process.exitCode = survived > 0 ? 1 : 0;
