#!/usr/bin/env node
// npm run build: the phone-number data (scripts/phone-zones.mjs, scripts/phone-trunk-prefixes.mjs), then `n8n-node build` (TypeScript to
// dist/, icons copied). On a terminal n8n-node's spinner shows as usual. Written to a file or a pipe (a
// log, CI, `npm run demo > demo.log`), its output is plain text: the spinner's CI mode (one line per
// step, no animation), no colours, and the cursor codes it still writes taken out.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const terminal = Boolean(process.stdout.isTTY);

/** Runs a command in the repository; without a terminal its output is passed on as plain text. */
function run(command, args, env = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, {
			cwd: ROOT,
			env: { ...process.env, ...env },
			stdio: terminal ? 'inherit' : ['ignore', 'pipe', 'pipe'],
		});
		if (!terminal) {
			for (const [from, to] of [
				[child.stdout, process.stdout],
				[child.stderr, process.stderr],
			]) {
				from.setEncoding('utf8');
				from.on('data', (text) => to.write(stripVTControlCharacters(text).replace(/\r/g, '\n')));
			}
		}
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0
				? resolve()
				: reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
		);
	});
}

try {
	for (const generator of ['phone-zones.mjs', 'phone-trunk-prefixes.mjs'])
		await run(process.execPath, [path.join(ROOT, 'scripts', generator)]);
	const n8nNode = path.join(ROOT, 'node_modules', '.bin', 'n8n-node');
	await run(n8nNode, ['build'], terminal ? {} : { CI: 'true', NO_COLOR: '1' });
} catch (error) {
	console.error(error.message);
	process.exitCode = 1;
}
