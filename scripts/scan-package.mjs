#!/usr/bin/env node
// `npm run scan`: n8n's community-package scanner analyser on the packed tarball and on the sources
// (scripts/lib/package-scan.mjs).
import { scanPackage } from './lib/package-scan.mjs';

const { tarball, files, results } = await scanPackage();
let failed = false;
for (const { label, passed, message, details } of results) {
	if (passed) {
		console.log(`scanner: ${label} passed`);
	} else {
		failed = true;
		console.error(`scanner: ${label} FAILED: ${message}\n${details ?? ''}`);
	}
}
console.log(`scanner: ${tarball} holds ${files} files`);
process.exitCode = failed ? 1 : 0;
