#!/usr/bin/env node
// Checks the committed results of Stryker's run (test/mutation/stryker-incremental.json, written by
// `npm run test:mutation`) against the sources as they are now, without running a mutant: for each scoped source
// (scope.mjs) that has results, the results must be of its current text (else they are stale: run
// `npm run test:mutation`, which tests only the mutants that changed, and commit the file), and the mutation score
// of those results must reach MIN_SCORE. A scoped source without results is listed as not measured yet.
// Exits 1 on a stale file or a score below the minimum.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { MIN_SCORE, REPORT, SCOPED_SOURCES } from './scope.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The files a pattern of scope.mjs names (`folder/*.ts`: that folder's files ending in `.ts`). */
function filesOf(pattern) {
	const folder = path.dirname(pattern);
	const suffix = path.basename(pattern).replace(/^\*/, '');
	return fs
		.readdirSync(path.join(ROOT, folder))
		.filter((name) => name.endsWith(suffix))
		.map((name) => `${folder}/${name}`);
}

/** Stryker's statuses: which count as detected, and which are not valid mutants (not in the score). */
const DETECTED = new Set(['Killed', 'Timeout']);
const NOT_COUNTED = new Set(['CompileError', 'RuntimeError', 'Ignored', 'Pending']);

const reportPath = path.join(ROOT, REPORT);
const report = fs.existsSync(reportPath)
	? JSON.parse(fs.readFileSync(reportPath, 'utf8'))
	: { files: {} };
const stale = [];
const unmeasured = [];
let detected = 0;
let valid = 0;
const survivors = [];
for (const file of SCOPED_SOURCES.flatMap(filesOf)) {
	const results = report.files[file];
	if (!results) {
		unmeasured.push(file);
		continue;
	}
	if (results.source !== fs.readFileSync(path.join(ROOT, file), 'utf8')) {
		stale.push(file);
		continue;
	}
	for (const mutant of results.mutants) {
		if (NOT_COUNTED.has(mutant.status)) continue;
		valid++;
		if (DETECTED.has(mutant.status)) detected++;
		else
			survivors.push(
				`${file}:${mutant.location.start.line} ${mutant.mutatorName} (${mutant.status})`,
			);
	}
}
const score = valid === 0 ? 100 : (100 * detected) / valid;
console.log(
	`Mutation score of the measured files: ${score.toFixed(1)} % (${detected} of ${valid} mutants detected; minimum ${MIN_SCORE} %)`,
);
for (const survivor of survivors) console.log(`  not detected: ${survivor}`);
for (const file of unmeasured) console.log(`  not measured yet: ${file}`);
for (const file of stale)
	console.log(
		`  STALE: ${file} changed since its mutants were tested: run npm run test:mutation and commit ${REPORT}`,
	);
process.exitCode = stale.length > 0 || score < MIN_SCORE ? 1 : 0;
