#!/usr/bin/env node
// Runs n8n's community-package scanner analyser on what users would install: the packed tarball
// (built JS and package.json) and the sources it is built from, the nodes' codex JSON included, with the
// scanner's own source patterns. The scanner lints with inline configuration turned off, so an
// eslint-disable comment hides nothing from it.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

import { packPackage, ROOT } from './lib/community-package.mjs';

const pack = await packPackage();
try {
	// The scanner reads a folder: unpack the tarball as npm would (its files sit under package/).
	execFileSync('tar', ['-xzf', pack.tarball, '-C', pack.dir]);
	const checks = [
		['packed package', path.join(pack.dir, 'package'), ['**/*.js', '**/*.json']],
		['sources', ROOT, SOURCE_FILE_PATTERNS],
	];
	let failed = false;
	for (const [label, dir, patterns] of checks) {
		const result = await analyzePackage(dir, patterns);
		if (result.passed) {
			console.log(`scanner: ${label} passed`);
		} else {
			failed = true;
			console.error(`scanner: ${label} FAILED: ${result.message}\n${result.details ?? ''}`);
		}
	}
	console.log(`scanner: ${path.basename(pack.tarball)} holds ${pack.files.length} files`);
	process.exitCode = failed ? 1 : 0;
} finally {
	pack.remove();
}
