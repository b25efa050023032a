// npm run bench:batch -- --scale 100,1000,10000: Call → Create (node version 1.4) over lists of those sizes
// in the pinned real n8n, one run after the other, in two modes: without waiting (Calls at Once 10), and
// waiting for short calls (Calls at Once 50). For each run it prints the time per lead (what n8n recorded
// for the node, over the leads), n8n's peak resident memory (its process group, sampled every 100 ms) above
// what it used before the run, the size of the saved execution (n8n's stored run data), and the longest
// event-loop stall of n8n during the run: a worker thread asks n8n's /healthz every 50 ms and keeps the
// slowest answer. It measures and prints; it asserts nothing.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

import { control } from './sandbox-control.mjs';

const { startSandbox } = createRequire(import.meta.url)('../sandbox/index.js');
const API_KEY = 'bench-batch-scale-key';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const SCALE_MODES = [
	{ id: 'no-wait', atOnce: 10, wait: false },
	{ id: 'wait', atOnce: 50, wait: true },
];

/** Resident memory (kB) of every process in the group (n8n and what it started). */
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

/**
 * Asks `url` every 50 ms from a thread of its own (the benchmark's own event loop also runs the
 * sandbox), one request at a time; `stop()` answers the slowest answer in ms and how many were asked.
 */
function startStallProbe(url) {
	const worker = new Worker(
		`const { parentPort, workerData } = require('node:worker_threads');
		let running = true, slowest = 0, probes = 0;
		const slow = [];
		const since = performance.now();
		parentPort.on('message', () => { running = false; });
		(async () => {
			// A first request loads the thread's HTTP client: not a stall of n8n's.
			await (await fetch(workerData.url)).text();
			parentPort.postMessage('ready');
			while (running) {
				const start = performance.now();
				try { await (await fetch(workerData.url)).text(); } catch {}
				const took = performance.now() - start;
				slowest = Math.max(slowest, took);
				if (took > 100) slow.push([Math.round(start - since), Math.round(took)]);
				probes++;
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
			parentPort.postMessage({ slowest, probes, slow });
		})();`,
		{ eval: true, workerData: { url } },
	);
	return {
		ready: new Promise((resolve) => worker.once('message', resolve)),
		stop: () =>
			new Promise((resolve) => {
				worker.once('message', (result) => {
					void worker.terminate();
					resolve(result);
				});
				worker.postMessage('stop');
			}),
	};
}

function workflowFor(mode, credential, fromNumber, webhookPath) {
	return {
		name: `Batch scale ${mode.id} ${webhookPath}`,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path: webhookPath,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				name: 'Leads',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fieldToSplitOut: 'body.leads', include: 'noOtherFields', options: {} },
			},
			{
				name: 'Voice Agent',
				type: 'n8n-nodes-voice-agent.voiceAgent',
				typeVersion: 1.4,
				position: [400, 0],
				parameters: {
					resource: 'call',
					operation: 'create',
					from: { __rl: true, mode: 'phoneNumber', value: fromNumber },
					to: '={{ $json.phone }}',
					context: '=Renewal call for {{ $json.name }}',
					options: {
						callsAtOnce: mode.atOnce,
						...(mode.wait ? { waitForEnd: true, firstCheckSeconds: 1, maxWaitMinutes: 10 } : {}),
					},
				},
				credentials: { voiceAgentApi: credential },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Leads', type: 'main', index: 0 }]] },
			Leads: { main: [[{ node: 'Voice Agent', type: 'main', index: 0 }]] },
		},
		// Saved, to measure what a run of this size stores.
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
	};
}

const leadsOf = (count) =>
	Array.from({ length: count }, (_, i) => ({
		name: `Lead ${i}`,
		phone: `+1415${String(2000001 + i).padStart(7, '0')}`,
	}));

async function waitForResult(resultsFile, tag, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '';
		const line = text.split('\n').find((entry) => entry.includes(tag));
		if (line) return JSON.parse(line);
		await sleep(500);
	}
	throw new Error(`no result for run ${tag} within ${timeoutMs} ms`);
}

/** The stored size (characters of n8n's serialized run data) of the workflow's newest execution. */
async function savedSize(server, workflowId) {
	for (let tries = 0; tries < 60; tries++) {
		const [latest] = await server.rest.listExecutions({ workflowId, limit: 1 });
		if (latest && !['new', 'running', 'waiting'].includes(latest.status)) {
			const raw = await server.rest.request('GET', `/rest/executions/${latest.id}`, undefined, {
				timeoutMs: 300_000,
			});
			return typeof raw.data === 'string' ? raw.data.length : JSON.stringify(raw.data).length;
		}
		await sleep(1000);
	}
	return undefined;
}

async function runOne(server, resultsFile, mode, size, { callMs, log }) {
	const sandbox = await startSandbox({
		port: 0,
		apiKeys: [API_KEY],
		agents: 1,
		calls: 0,
		callDurationMs: callMs,
	});
	try {
		const agents = await (
			await fetch(`${sandbox.baseUrl}/agents`, { headers: { authorization: `Bearer ${API_KEY}` } })
		).json();
		const name = `Voice Agent (scale ${mode.id} ${size})`;
		const { id } = await server.rest.request('POST', '/rest/credentials', {
			name,
			type: 'voiceAgentApi',
			data: { apiKey: API_KEY, baseUrl: sandbox.baseUrl },
		});
		const webhookPath = `scale-${mode.id}-${size}`;
		const workflow = await server.rest.request(
			'POST',
			'/rest/workflows',
			workflowFor(mode, { id, name }, agents.agents[0].phone_number, webhookPath),
		);
		await server.rest.activateWorkflow(workflow.id);
		await control(sandbox, 'DELETE', '/call-load');
		const body = JSON.stringify({ benchTag: randomUUID(), leads: leadsOf(size) });
		const tag = JSON.parse(body).benchTag;
		await sleep(2000);
		const baselineKb = groupRssKb(server.pid);
		let peakKb = baselineKb;
		const sampler = setInterval(() => (peakKb = Math.max(peakKb, groupRssKb(server.pid))), 100);
		const probe = startStallProbe(`${server.url}/healthz`);
		await probe.ready;
		const started = Date.now();
		try {
			const response = await fetch(server.webhookUrl(webhookPath), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			if (!response.ok) throw new Error(`webhook ${webhookPath} answered ${response.status}`);
			log(`scale ${mode.id} ${size} started`);
			const result = await waitForResult(resultsFile, tag, size * 500 + 600_000);
			const wallMs = Date.now() - started;
			const stall = await probe.stop();
			clearInterval(sampler);
			const node = result.nodes['Voice Agent'] ?? {};
			const load = (await control(sandbox, 'GET', '/call-load')).accounts?.[0] ?? {};
			const saved = await savedSize(server, workflow.id);
			log(`scale ${mode.id} ${size} done in ${(wallMs / 1000).toFixed(1)} s`);
			await server.rest.deactivateWorkflow(workflow.id);
			return {
				mode,
				size,
				nodeMs: node.ms,
				items: node.items,
				error: node.error ?? result.error,
				created: load.calls_created,
				maxInProgress: load.max_in_progress,
				peakAboveMb: (peakKb - baselineKb) / 1024,
				peakMb: peakKb / 1024,
				savedBytes: saved,
				stallMs: stall.slowest,
				probes: stall.probes,
				// [ms after the probe started, ms it took] of every answer slower than 100 ms.
				slowAnswers: stall.slow,
				// n8n's own view (bench/n8n-hooks.cjs): its event loop's longest delay, its collector's pauses.
				loopDelayMaxMs: result.stalls?.loopDelayMaxMs,
				gcMaxMs: result.stalls?.gcMaxMs,
				gcTotalMs: result.stalls?.gcTotalMs,
				loadAverage: os.loadavg()[0],
			};
		} finally {
			clearInterval(sampler);
		}
	} finally {
		await sandbox.close();
	}
}

function render(results, callMs) {
	const lines = [
		`### Call → Create over lists of leads (node version 1.4): without waiting, 10 at once; waiting, 50 at once, calls of ${callMs / 1000} s`,
		'',
		'| Mode | Leads | Node time | Per lead | × per lead at the smallest | Calls created | Most in progress | n8n peak resident (above before) | Saved execution | Per lead saved | Longest stall (/healthz) | Longest event-loop delay (n8n) | Longest GC pause (n8n) | Load average |',
		'| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
	];
	for (const mode of SCALE_MODES) {
		const rows = results.filter((r) => r.mode.id === mode.id);
		const base = rows[0] && rows[0].nodeMs / rows[0].size;
		for (const r of rows) {
			const perLead = r.nodeMs / r.size;
			lines.push(
				`| ${mode.id} | ${r.size.toLocaleString('en')} | ${(r.nodeMs / 1000).toFixed(1)} s | ${perLead.toFixed(2)} ms | ${(perLead / base).toFixed(2)} | ${r.created}${r.error ? ` (error: ${r.error})` : ''} | ${r.maxInProgress} | ${r.peakMb.toFixed(0)} MB (+${r.peakAboveMb.toFixed(0)} MB) | ${(r.savedBytes / 1024 / 1024).toFixed(2)} MB | ${(r.savedBytes / r.size).toFixed(0)} B | ${r.stallMs.toFixed(0)} ms (${r.probes} asks) | ${r.loopDelayMaxMs?.toFixed(0)} ms | ${r.gcMaxMs?.toFixed(0)} ms | ${r.loadAverage.toFixed(1)} |`,
			);
		}
	}
	lines.push('');
	return lines.join('\n');
}

/** Runs every size in every mode (or the modes named), one at a time, in the running n8n. */
export async function runScale(server, resultsFile, { sizes, modes, callMs, log }) {
	const results = [];
	for (const mode of SCALE_MODES.filter((m) => !modes || modes.has(m.id))) {
		for (const size of sizes) {
			results.push(await runOne(server, resultsFile, mode, size, { callMs, log }));
			process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
		}
	}
	return render(results, callMs);
}
