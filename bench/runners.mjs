// How the benchmark runs one job: a workflow in the n8n server (through its webhook; the hook file reports
// what n8n recorded), or the same job in the floor process. Each run reports its time, its items, the
// memory it added at its peak in the process that did the work, and what the sandbox saw.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { clearTraffic, traffic } from './sandbox-control.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Jobs as workflows of an n8n server started with bench/n8n-hooks.cjs writing to `resultsFile`. */
export class N8nJobs {
	constructor(server, resultsFile) {
		this.server = server;
		this.resultsFile = resultsFile;
	}

	/** Runs a job (`{ path, workflow }`); its time is the sum of what n8n recorded for its nodes. */
	async run(job, sandbox) {
		const tag = randomUUID();
		await clearTraffic(sandbox);
		const response = await fetch(this.server.webhookUrl(job.path), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ benchTag: tag }),
		});
		if (!response.ok) throw new Error(`webhook ${job.path} answered ${response.status}`);
		const result = await this.waitForResult(tag);
		const nodes = Object.entries(result.nodes)
			.filter(([name]) => name !== 'Webhook')
			.map(([, node]) => node);
		const last = nodes.at(-1);
		return {
			ms: nodes.reduce((sum, node) => sum + node.ms, 0),
			items: last.error ? 0 : last.items,
			error: result.error,
			memoryMb: result.memoryMb,
			...(await traffic(sandbox)),
		};
	}

	async waitForResult(tag, timeoutMs = 600_000) {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			const text = fs.existsSync(this.resultsFile) ? fs.readFileSync(this.resultsFile, 'utf8') : '';
			const line = text.split('\n').find((entry) => entry.includes(tag));
			if (line) return JSON.parse(line);
			await sleep(20);
		}
		throw new Error(`no result for run ${tag} within ${timeoutMs} ms`);
	}
}

/** The floor process (bench/floor.mjs) under the Node that runs n8n (`runtime.node`). */
export class Floor {
	constructor(runtime, env) {
		this.child = spawn(runtime.node, ['--expose-gc', path.join(here, 'floor.mjs')], {
			env: { ...process.env, ...env },
			stdio: ['pipe', 'pipe', 'inherit'],
		});
		this.lines = readline.createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
	}

	async run(job, sandbox) {
		await clearTraffic(sandbox);
		this.child.stdin.write(`${JSON.stringify({ ...job, baseUrl: sandbox.baseUrl })}\n`);
		const { value, done } = await this.lines.next();
		if (done) throw new Error('the floor process ended');
		return { ...JSON.parse(value), ...(await traffic(sandbox)) };
	}

	stop() {
		this.child.stdin.end();
	}
}

/**
 * Runs each variant once to warm up, then `rounds` rounds taking the variants in turn, so a busy moment
 * of the machine hits all of them alike. Returns the runs per variant label.
 */
export async function alternate(variants, rounds) {
	for (const variant of variants) await variant.run();
	const runs = Object.fromEntries(variants.map((variant) => [variant.label, []]));
	for (let round = 0; round < rounds; round++) {
		for (const variant of variants) runs[variant.label].push(await variant.run());
	}
	return runs;
}
