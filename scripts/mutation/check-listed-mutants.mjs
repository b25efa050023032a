#!/usr/bin/env node
// The review's mutants (listed-mutants.mjs) against the tests: each is applied to a copy of the built package
// (dist/, from `npm run build`), and one of its killers must fail on it. Exits 1 when a mutant survives, when
// a patch no longer applies (re-write it against the code as it is now), or, with --baseline, when a killer
// fails on the unmutated build (then nothing it says about a mutant counts).
//
//   node scripts/mutation/check-listed-mutants.mjs [--only id,id] [--baseline] [--all-killers] [--discover]
//
// Each mutant's killers run cheapest first, until one fails; --all-killers runs every one of them and says
// which failed (the property run and the named test, for the report).
// --discover runs every test of scope.mjs's KILLING_TESTS on each mutant (no bail) and prints which of them
// fail: for choosing the killers. Property suites run at their default runs from their fixed seed, without
// shrinking (VOICE_AGENT_PROPERTY_NO_SHRINK): a failure is a kill, its smallest form is not needed here.
import { spawnSync } from 'node:child_process';
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
/** Jest's workers per run: the suites wait on the sandbox and timers more than on the CPU. */
const WORKERS = process.env.VOICE_AGENT_MUTATION_WORKERS ?? '2';
/** A killer run that takes longer than this has hung on the mutant: that is a kill (a test would time out). */
const RUN_LIMIT_MS = 20 * 60_000;

const SKIPPED_IN_COPY = new Set(['node_modules', '.git', '.stryker-tmp', 'reports', 'coverage']);

/** A copy of the repository with its built dist/, node_modules linked: mutants never touch the worktree. */
function copyOfRepository() {
	if (!fs.existsSync(path.join(ROOT, 'dist', 'nodes')))
		throw new Error('dist/ is missing: run `npm run build` first');
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

/** Applies the mutant's edits in `copy`; returns the original text of each file it changed. */
function apply(copy, mutant) {
	const files = builtFiles(path.join(copy, 'dist', 'nodes'));
	const originals = new Map();
	for (const edit of mutant.edits) {
		const global = new RegExp(edit.find.source, 'g');
		const hits = files.flatMap((file) => {
			return [...fs.readFileSync(file, 'utf8').matchAll(global)].map(() => file);
		});
		if (hits.length !== 1)
			throw new Error(
				`Listed mutant ${mutant.id}: ${edit.find} matches ${hits.length} places in dist/nodes (must be exactly one): re-write it against the code as it is now (scripts/mutation/listed-mutants.mjs)`,
			);
		const file = hits[0];
		const text = fs.readFileSync(file, 'utf8');
		if (!originals.has(file)) originals.set(file, text);
		fs.writeFileSync(file, text.replace(edit.find, edit.replace));
	}
	return originals;
}

function restore(originals) {
	for (const [file, text] of originals) fs.writeFileSync(file, text);
}

/**
 * Runs Jest in `copy` on `files` (with -t `name`); its failed tests, or why it could not tell. No --bail:
 * Jest then exits before it writes its result file.
 */
function runJest(copy, files, { name }) {
	const output = path.join(copy, `jest-result-${Date.now()}.json`);
	const jestArgs = [
		path.join(copy, 'node_modules', 'jest', 'bin', 'jest.js'),
		'--ci',
		'--json',
		`--outputFile=${output}`,
		`--maxWorkers=${WORKERS}`,
		...(name ? ['-t', name] : []),
		...files,
	];
	const started = Date.now();
	const run = spawnSync(process.execPath, jestArgs, {
		cwd: copy,
		env: { ...process.env, VOICE_AGENT_PROPERTY_NO_SHRINK: '1', N8N_USER_FOLDER: '' },
		encoding: 'utf8',
		timeout: RUN_LIMIT_MS,
		maxBuffer: 64 * 1024 * 1024,
	});
	const seconds = Math.round((Date.now() - started) / 1000);
	if (run.error?.code === 'ETIMEDOUT') return { hung: true, failed: [], ran: 1, seconds };
	if (!fs.existsSync(output))
		return {
			error: `Jest wrote no result (exit ${run.status}): ${run.stderr.slice(-2000)}`,
			seconds,
		};
	const result = JSON.parse(fs.readFileSync(output, 'utf8'));
	fs.rmSync(output);
	const failed = result.testResults.flatMap((suite) =>
		suite.assertionResults
			.filter((test) => test.status === 'failed')
			.map((test) => ({
				file: path.relative(copy, suite.name),
				test: test.fullName,
				why: (test.failureMessages[0] ?? '').split('\n').find((line) => line.trim() !== '') ?? '',
			})),
	);
	const broken = result.testResults
		.filter((suite) => suite.assertionResults.length === 0 && suite.status === 'failed')
		.map(
			(suite) =>
				`${path.relative(copy, suite.name)}: ${suite.message.split('\n').slice(0, 3).join(' ')}`,
		);
	return { failed, broken, ran: result.numPassedTests + result.numFailedTests, seconds };
}

const mutants = LISTED_MUTANTS.filter((mutant) => !only || only.includes(mutant.id));
const copy = copyOfRepository();
let failures = 0;
try {
	if (flag('--baseline')) {
		const files = [
			...new Set(mutants.flatMap((mutant) => mutant.killers.map((killer) => killer.file))),
		];
		const baseline = runJest(copy, files, {});
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
	}
	for (const mutant of mutants) {
		const originals = apply(copy, mutant);
		try {
			if (flag('--discover')) {
				const files = KILLING_TESTS.filter((file) => fs.existsSync(path.join(copy, file)));
				const run = runJest(copy, files, {});
				const killers = [...new Set((run.failed ?? []).map((test) => test.file))];
				console.log(
					`${mutant.id}: ${run.hung ? 'hung' : killers.length > 0 ? `killed by ${killers.join(', ')}` : 'SURVIVED'} (${run.seconds} s)`,
				);
				for (const test of run.failed ?? [])
					console.log(`    ${test.file} › ${test.test}\n      ${test.why}`);
				for (const line of run.broken ?? []) console.log(`    broken: ${line}`);
				if (run.error) console.log(`    ${run.error}`);
				if (!run.hung && killers.length === 0) failures++;
				continue;
			}
			const killedBy = [];
			for (const killer of mutant.killers) {
				if (!fs.existsSync(path.join(copy, killer.file)))
					throw new Error(`${mutant.id}: its killer ${killer.file} does not exist`);
				const run = runJest(copy, [killer.file], { name: killer.name });
				if (run.error) throw new Error(`${mutant.id}: ${run.error}`);
				if (run.ran === 0)
					throw new Error(`${mutant.id}: no test of ${killer.file} matches ${killer.name}`);
				if (run.hung) killedBy.push(`${killer.file} (hung past ${RUN_LIMIT_MS / 60_000} min)`);
				else if (run.failed.length > 0)
					killedBy.push(
						`${run.failed[0].file} › ${run.failed[0].test} (${run.seconds} s): ${run.failed[0].why}`,
					);
				else if (flag('--all-killers'))
					console.log(`         not by ${killer.file} ${killer.name ?? ''} (${run.seconds} s)`);
				if (killedBy.length > 0 && !flag('--all-killers')) break;
			}
			console.log(`${killedBy.length > 0 ? 'killed  ' : 'SURVIVED'} ${mutant.id}: ${mutant.what}`);
			for (const by of killedBy) console.log(`         by ${by}`);
			if (killedBy.length === 0) failures++;
		} finally {
			restore(originals);
		}
	}
} finally {
	fs.rmSync(copy, { recursive: true, force: true });
}
console.log(`${mutants.length - failures} of ${mutants.length} listed mutants killed`);
process.exitCode = failures > 0 ? 1 : 0;
