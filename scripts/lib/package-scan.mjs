// n8n's community-package scanner analyser (`@n8n/scan-community-package`) on what users would
// install: the packed tarball (built JS and package.json) and, when asked, the sources it is built
// from, the nodes' codex JSON included, with the scanner's own source patterns. The scanner lints with
// inline configuration turned off, so an eslint-disable comment hides nothing from it. Shared by
// `npm run scan` and the release check.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

import { packPackage, ROOT } from './community-package.mjs';

/**
 * Packs the package (dist/ must be built), unpacks the tarball as npm would and scans it.
 * @returns {Promise<{ tarball: string, files: number, results: Array<{ label: string, passed: boolean,
 *   message?: string, details?: string }> }>}
 */
export async function scanPackage({ root = ROOT, sources = true } = {}) {
	const pack = await packPackage({ root });
	try {
		// The scanner reads a folder: the tarball's files sit under package/.
		execFileSync('tar', ['-xzf', pack.tarball, '-C', pack.dir]);
		const checks = [['packed package', path.join(pack.dir, 'package'), ['**/*.js', '**/*.json']]];
		if (sources) checks.push(['sources', root, SOURCE_FILE_PATTERNS]);
		const results = [];
		for (const [label, dir, patterns] of checks) {
			const result = await analyzePackage(dir, patterns);
			results.push({ label, ...result });
		}
		return { tarball: path.basename(pack.tarball), files: pack.files.length, results };
	} finally {
		pack.remove();
	}
}
