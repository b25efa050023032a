#!/usr/bin/env node
// npm run bench:history: the Call History Trigger's backfill (Start From: All History, Call Ended) of a history
// of 10,000 and 100,000 ended calls, in the pinned real n8n with the packed package. Each size runs in an n8n
// process of its own against a sandbox of its own. The workflow is published and unpublished again and again:
// each publish runs one poll at once (what a scheduled poll does, without waiting a minute between polls), and
// each poll takes Max Calls per Poll calls. It measures the n8n process's peak resident memory (its group's, read
// from /proc every 100 ms) above what it held before the first poll, and the time per 1,000 calls, until every
// call of the history was output. It measures and prints a Markdown table; it asserts nothing.
//
//   npm run bench:history -- [--sizes 10000,100000] [--per-poll 1000]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { installPackage, packPackage } from '../scripts/lib/community-package.mjs';
import { startN8nServer } from '../scripts/lib/n8n-server.mjs';
import { ensureRuntime } from '../scripts/lib/runtime-install.mjs';
import { createUserFolder, removeUserFolder } from '../scripts/lib/user-folder.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { startSandbox } = createRequire(import.meta.url)('../sandbox/index.js');

const { values: flags } = parseArgs({
	options: {
		sizes: { type: 'string', default: '10000,100000' },
		'per-poll': { type: 'string', default: '1000' },
	},
});
const SIZES = flags.sizes.split(',').map(Number);
const PER_POLL = Number(flags['per-poll']);
const API_KEY = 'bench-history-key';
const TRIGGER = 'Call history';
const log = (line) => process.stderr.write(`[bench:history] ${new Date().toISOString()} ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory (kB) of every process in the group (n8n and whatever it started). */
function groupRssKb(groupId) {
	let total = 0;
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(fields[2]) !== groupId) continue;
			const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
			total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
		} catch {
			// The process ended while it was read.
		}
	}
	return total;
}

function workflowFor(credential) {
	return {
		name: 'History backfill',
		nodes: [
			{
				name: TRIGGER,
				type: 'n8n-nodes-voice-agent.voiceAgentCallHistoryTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyHour', minute: 0 }] },
					event: 'callEnded',
					options: { startFrom: 'allHistory', maxCallsPerPoll: PER_POLL },
				},
				credentials: { voiceAgentApi: credential },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none' },
	};
}

/** The calls output so far: the trigger's items over every run the hook recorded. */
function outputSoFar(resultsFile) {
	if (!fs.existsSync(resultsFile)) return { calls: 0, runs: 0, heapMb: 0 };
	const runs = fs
		.readFileSync(resultsFile, 'utf8')
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => JSON.parse(line));
	return {
		calls: runs.reduce((sum, run) => sum + (run.nodes[TRIGGER]?.items ?? 0), 0),
		runs: runs.length,
		heapMb: Math.max(0, ...runs.map((run) => run.memoryMb ?? 0)),
	};
}

async function runSize(runtime, userFolder, size) {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-bench-history-'));
	const resultsFile = path.join(work, 'results.jsonl');
	const sandbox = await startSandbox({ port: 0, apiKeys: [API_KEY], agents: 1, calls: size });
	const server = await startN8nServer(userFolder, {
		runtime,
		env: {
			EXTERNAL_HOOK_FILES: path.join(here, 'n8n-hooks.cjs'),
			VOICE_AGENT_BENCH_RESULTS: resultsFile,
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
			NODE_OPTIONS: '--expose-gc',
		},
	});
	try {
		await server.setupOwnerAndLogin();
		const name = `Voice Agent (history ${size})`;
		const { id } = await server.rest.request('POST', '/rest/credentials', {
			name,
			type: 'voiceAgentApi',
			data: { apiKey: API_KEY, baseUrl: sandbox.baseUrl },
		});
		const workflow = await server.rest.request(
			'POST',
			'/rest/workflows',
			workflowFor({ id, name }),
		);
		await sleep(2_000);
		const baselineKb = groupRssKb(server.pid);
		let peakKb = baselineKb;
		const sampler = setInterval(() => {
			peakKb = Math.max(peakKb, groupRssKb(server.pid));
		}, 100);
		const started = Date.now();
		let polls = 0;
		try {
			while (outputSoFar(resultsFile).calls < size) {
				const expected = Math.min(size, (polls + 1) * PER_POLL);
				await server.rest.activateWorkflow(workflow.id);
				polls++;
				const deadline = Date.now() + 600_000;
				while (outputSoFar(resultsFile).calls < expected) {
					if (Date.now() > deadline) throw new Error(`poll ${polls}: no ${expected} calls`);
					await sleep(100);
				}
				await server.rest.deactivateWorkflow(workflow.id);
				if (polls % 10 === 0)
					log(`${size}: ${outputSoFar(resultsFile).calls} calls after ${polls} polls`);
			}
		} finally {
			clearInterval(sampler);
		}
		const wallMs = Date.now() - started;
		const output = outputSoFar(resultsFile);
		return {
			size,
			polls,
			runs: output.runs,
			calls: output.calls,
			wallMs,
			perThousandMs: wallMs / (size / 1000),
			baselineMb: baselineKb / 1024,
			peakMb: peakKb / 1024,
			heapMb: output.heapMb,
		};
	} finally {
		await server.stop();
		await sandbox.close();
		fs.rmSync(work, { recursive: true, force: true });
	}
}

function render(results) {
	const lines = [
		`### Call History Trigger backfill (All History, Call Ended, Max Calls per Poll ${PER_POLL})`,
		'',
		'| History | Polls | Calls output | Time | Per 1,000 calls | n8n resident before | n8n peak resident | Peak above before | Largest heap gain of one run |',
		'| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
	];
	for (const r of results)
		lines.push(
			`| ${r.size.toLocaleString('en-US')} | ${r.polls} | ${r.calls.toLocaleString('en-US')} | ${(r.wallMs / 1000).toFixed(1)} s | ${(r.perThousandMs / 1000).toFixed(2)} s | ${r.baselineMb.toFixed(0)} MB | ${r.peakMb.toFixed(0)} MB | ${(r.peakMb - r.baselineMb).toFixed(0)} MB | ${r.heapMb.toFixed(1)} MB |`,
		);
	lines.push(
		'',
		"Each poll: a publish of the workflow, which polls at once, then an unpublish. Time: from the first publish to the last call output, over the history's thousands. Resident memory: the n8n process group's RSS from /proc, sampled every 100 ms; the heap gain is the external hook's (V8 heap and buffers above the start of one execution).",
		'',
	);
	return lines.join('\n');
}

async function main() {
	const runtime = await ensureRuntime({ log: (line) => log(line) });
	const pack = await packPackage();
	try {
		const results = [];
		for (const size of SIZES) {
			log(`history of ${size} calls`);
			const userFolder = createUserFolder({ prefix: 'voice-agent-bench-history-n8n-' });
			try {
				await installPackage(userFolder, pack.tarball);
				results.push(await runSize(runtime, userFolder, size));
			} finally {
				removeUserFolder(userFolder);
			}
			log(`done: ${JSON.stringify(results.at(-1))}`);
		}
		process.stdout.write(render(results));
	} finally {
		pack.remove();
	}
}

await main();
