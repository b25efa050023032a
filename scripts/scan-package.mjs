#!/usr/bin/env node
// Runs n8n's community-package scanner analyser on what users would install: the packed tarball
// (built JS and package.json) and the TypeScript sources it is built from. The scanner lints with
// inline configuration turned off, so an eslint-disable comment hides nothing from it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(path.join(tmpdir(), 'voice-agent-scan-'));

try {
	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: root,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	execFileSync('tar', ['-xzf', path.join(work, tarball), '-C', work]);
	const packed = path.join(work, 'package');

	const checks = [
		['packed package', packed, ['**/*.js', '**/*.json']],
		['sources', root, ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json']],
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
	const files = execFileSync('tar', ['-tzf', path.join(work, tarball)], { encoding: 'utf8' })
		.split('\n')
		.filter(Boolean);
	console.log(`scanner: ${tarball} holds ${files.length} files`);
	process.exitCode = failed ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
