#!/usr/bin/env node
// npm run bench:batch: Call → Create over a list of leads in the pinned real n8n, waiting for each call to
// end, at several Calls at Once and with a pace. The modes run at the same time, each against a sandbox of
// its own (the sandbox counts per account, and its traffic per server), so the whole job takes as long as
// its slowest mode (Calls at Once 1: about 100 × 21 s). Prints a Markdown table: wall time against the
// ideal, the most calls in progress the sandbox saw, the largest 60 s window of new calls, requests per
// call and the memory n8n's heap gained during the run. It measures and prints; it asserts no time.
// Two modes compare Calling Hours and Call Again (node version 1.3) on and off over one list whose
// numbers are in several time zones, every one inside its 09:00–20:00 window at the time of the run.
//
//   npm run bench:batch -- [--leads 100] [--call-seconds 20] [--only 1,10,25,10@30,25@30,10v1.3,10v1.3+hours]
//
// With --scale, instead: lists of the given sizes one after the other, without waiting and waiting for
// short calls (bench/batch-scale.mjs): time per lead, n8n's peak memory, the saved execution's size and the
// longest event-loop stall.
//
//   npm run bench:batch -- --scale 100,1000,10000,50000 [--scale-modes no-wait,wait] [--scale-call-ms 500]
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { installPackage, packPackage } from '../scripts/lib/community-package.mjs';
import { splitByWindow } from '../scripts/lib/lead-zones.mjs';
import { startN8nServer } from '../scripts/lib/n8n-server.mjs';
import { ensureRuntime } from '../scripts/lib/runtime-install.mjs';
import { createUserFolder, removeUserFolder } from '../scripts/lib/user-folder.mjs';
import { runScale } from './batch-scale.mjs';
import { control } from './sandbox-control.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { startSandbox } = createRequire(import.meta.url)('../sandbox/index.js');

const { values: flags } = parseArgs({
	options: {
		leads: { type: 'string', default: '100' },
		'call-seconds': { type: 'string', default: '20' },
		only: { type: 'string' },
		scale: { type: 'string' },
		'scale-modes': { type: 'string' },
		'scale-call-ms': { type: 'string', default: '500' },
	},
});
const LEADS = Number(flags.leads);
const CALL_MS = Number(flags['call-seconds']) * 1000;
const API_KEY = 'bench-batch-key';
/** Calls at Once, and the pace (new calls per minute) where there is one. */
const ALL_MODES = [
	{ id: '1', atOnce: 1 },
	{ id: '10', atOnce: 10 },
	{ id: '25', atOnce: 25 },
	{ id: '10@30', atOnce: 10, perMinute: 30 },
	// Not run by default: a pace that binds (25 at once could start 75 calls a minute).
	{ id: '25@30', atOnce: 25, perMinute: 30, optional: true },
	// Node version 1.3 over leads in several zones, all inside their window: without, then with, Calling
	// Hours (the number's own zone) and Call Again (3 attempts); no call fails, so no second attempt.
	{ id: '10v1.3', atOnce: 10, version: 1.3, zones: true },
	{ id: '10v1.3+hours', atOnce: 10, version: 1.3, zones: true, hours: true },
];
const ONLY = flags.only ? new Set(flags.only.split(',')) : undefined;
const MODES = ALL_MODES.filter((mode) => (ONLY ? ONLY.has(mode.id) : !mode.optional));
const log = (line) => process.stderr.write(`[bench:batch] ${new Date().toISOString()} ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The shortest possible wall time: rounds of N calls of CALL_MS, or, with a pace, the last call's earliest
 * start (P calls at once every 60 s, the first P at 0) plus its length, whichever is longer.
 */
function idealMs({ atOnce, perMinute }) {
	const rounds = Math.ceil(LEADS / atOnce) * CALL_MS;
	if (!perMinute) return rounds;
	return Math.max(rounds, Math.floor((LEADS - 1) / perMinute) * 60_000 + CALL_MS);
}

/** Calling Hours' window in the hours modes, in minutes after local midnight. */
const WINDOW = { from: 9 * 60, until: 20 * 60 };

/**
 * The prefixes of the zones inside their window now and for the next hour (longer than a run of the
 * zones modes), read once so both modes get the same list.
 */
const INSIDE_ZONES = splitByWindow(Date.now(), { ...WINDOW, marginMinutes: 60 }).inside;

/**
 * The leads the benchmark posts to the workflow's webhook: +1415 numbers, or for the zones modes
 * numbers spread over the zones inside their window.
 */
const leadsFor = (mode) =>
	Array.from({ length: LEADS }, (_, i) => {
		const prefix = mode.zones ? INSIDE_ZONES[i % INSIDE_ZONES.length].prefix : '1415';
		return { name: `Lead ${i}`, phone: `+${prefix}${String(5550001 + i).padStart(7, '0')}` };
	});

/** Call → Create's Calling Hours (every day, the number's own zone) and Call Again, as the example sets them. */
const HOURS_OPTIONS = {
	callingHours: {
		hours: {
			days: ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'],
			from: '09:00',
			until: '20:00',
			timeZone: 'number',
			unknownNumber: 'refuse',
		},
	},
	callAgain: {
		settings: {
			attempts: 3,
			minutesBetween: 60,
			successStatuses: 'completed',
			attempt: '={{ $json.attempt || 1 }}',
			previousCallId: '={{ $json.call_id }}',
		},
	},
};

/** Webhook → the posted leads, one item each (Split Out) → Call → Create, waiting, at the mode's Calls at Once and pace. */
function workflowFor(mode, credential, fromNumber, webhookPath) {
	const nodes = [
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
			typeVersion: mode.version ?? 1.1,
			position: [400, 0],
			parameters: {
				resource: 'call',
				operation: 'create',
				from: { __rl: true, mode: 'phoneNumber', value: fromNumber },
				to: '={{ $json.phone }}',
				context: '=Renewal call for {{ $json.name }}',
				options: {
					waitForEnd: true,
					firstCheckSeconds: 1,
					maxWaitMinutes: 10,
					callsAtOnce: mode.atOnce,
					...(mode.perMinute ? { maxCallsPerMinute: mode.perMinute } : {}),
					...(mode.hours ? HOURS_OPTIONS : {}),
				},
			},
			credentials: { voiceAgentApi: { id: credential.id, name: credential.name } },
		},
	];
	const connections = {
		Webhook: { main: [[{ node: 'Leads', type: 'main', index: 0 }]] },
		Leads: { main: [[{ node: 'Voice Agent', type: 'main', index: 0 }]] },
	};
	return {
		name: `Batch ${mode.id}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none' },
	};
}

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

/** One mode: its sandbox, credential and workflow; runs it and reads what the sandbox saw. */
async function runMode(server, resultsFile, mode) {
	const sandbox = await startSandbox({
		port: 0,
		apiKeys: [API_KEY],
		agents: 1,
		calls: 0,
		callDurationMs: CALL_MS,
	});
	try {
		const agents = await (
			await fetch(`${sandbox.baseUrl}/agents`, { headers: { authorization: `Bearer ${API_KEY}` } })
		).json();
		const fromNumber = agents.agents[0].phone_number;
		const name = `Voice Agent (batch ${mode.id})`;
		const { id } = await server.rest.request('POST', '/rest/credentials', {
			name,
			type: 'voiceAgentApi',
			data: { apiKey: API_KEY, baseUrl: sandbox.baseUrl },
		});
		const webhookPath = `batch-${mode.id.replace('@', '-at-').replace(/[^a-z0-9-]+/gi, '-')}`;
		const workflow = await server.rest.request(
			'POST',
			'/rest/workflows',
			workflowFor(mode, { id, name }, fromNumber, webhookPath),
		);
		await server.rest.activateWorkflow(workflow.id);
		await control(sandbox, 'DELETE', '/traffic');
		await control(sandbox, 'DELETE', '/call-load');
		const tag = randomUUID();
		const started = Date.now();
		const response = await fetch(server.webhookUrl(webhookPath), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ benchTag: tag, leads: leadsFor(mode) }),
		});
		if (!response.ok) throw new Error(`webhook ${webhookPath} answered ${response.status}`);
		log(`mode ${mode.id} started`);
		const result = await waitForResult(resultsFile, tag, idealMs(mode) * 3 + 600_000);
		const wallMs = Date.now() - started;
		const node = result.nodes['Voice Agent'] ?? {};
		const traffic = await control(sandbox, 'GET', '/traffic');
		const load = (await control(sandbox, 'GET', '/call-load')).accounts[0];
		log(`mode ${mode.id} done in ${(wallMs / 1000).toFixed(1)} s`);
		return {
			mode,
			wallMs,
			nodeMs: node.ms,
			items: node.items,
			error: node.error ?? result.error,
			memoryMb: result.memoryMb,
			requests: traffic.api_requests,
			created: load.calls_created,
			maxInProgress: load.max_in_progress,
			maxIn60s: load.max_created_in_60s,
		};
	} finally {
		await sandbox.close();
	}
}

function render(results) {
	const lines = [
		`### Call → Create, ${LEADS} leads, calls of ${CALL_MS / 1000} s, waiting (first check after 1 s)`,
		'',
		'| Mode | Calls at Once | Pace | Node time | Per lead | Ideal | × ideal | Most in progress | Largest 60 s window | Requests per call | Items | n8n heap added |',
		'| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
	];
	for (const r of results) {
		const ideal = idealMs(r.mode);
		const ms = r.nodeMs ?? r.wallMs;
		lines.push(
			`| ${r.mode.id} | ${r.mode.atOnce} | ${r.mode.perMinute ? `${r.mode.perMinute}/min` : 'none'} | ${(ms / 1000).toFixed(1)} s | ${(ms / LEADS / 1000).toFixed(3)} s | ${(ideal / 1000).toFixed(0)} s | ${(ms / ideal).toFixed(3)} | ${r.maxInProgress} | ${r.maxIn60s} | ${(r.requests / Math.max(1, r.created)).toFixed(2)} | ${r.items}${r.error ? ` (error: ${r.error})` : ''} | ${r.memoryMb?.toFixed(1)} MB |`,
		);
	}
	const perLead = (id) => {
		const result = results.find((r) => r.mode.id === id);
		// Only a run that called every lead compares: a lead deferred or refused would be quicker.
		const calledAll = result && !result.error && result.created === LEADS;
		return calledAll ? (result.nodeMs ?? result.wallMs) / LEADS : undefined;
	};
	const [without, withHours] = [perLead('10v1.3'), perLead('10v1.3+hours')];
	if (without && withHours) {
		lines.push(
			'',
			`Calling Hours and Call Again on, every lead inside its window (${INSIDE_ZONES.map((z) => z.zone).join(', ')}): ${(withHours / 1000).toFixed(3)} s per lead against ${(without / 1000).toFixed(3)} s without them, ×${(withHours / without).toFixed(3)} (the target is at most ×1.1).`,
		);
	}
	lines.push(
		'',
		'Node time: what n8n recorded for the Voice Agent node. Ideal: ceil(leads / N) × call length, or what the pace allows. Requests per call: every API request the sandbox saw, over the calls created. The modes ran at the same time in one n8n, so the heap figure is shared by them.',
		'',
	);
	return lines.join('\n');
}

async function main() {
	const runtime = await ensureRuntime({ log: (line) => log(line) });
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-bench-batch-'));
	const userFolder = createUserFolder({ prefix: 'voice-agent-bench-batch-n8n-' });
	let server;
	try {
		const pack = await packPackage();
		await installPackage(userFolder, pack.tarball).finally(() => pack.remove());
		const resultsFile = path.join(work, 'results.jsonl');
		server = await startN8nServer(userFolder, {
			runtime,
			env: {
				EXTERNAL_HOOK_FILES: path.join(here, 'n8n-hooks.cjs'),
				VOICE_AGENT_BENCH_RESULTS: resultsFile,
				// The scale runs measure what n8n saves; their workflows ask for it.
				EXECUTIONS_DATA_SAVE_ON_SUCCESS: flags.scale ? 'all' : 'none',
				// The hook collects garbage before each run to measure the heap it adds: a full collection
				// stops n8n for a moment, which the scale runs would count as a stall of the node's.
				...(flags.scale ? { VOICE_AGENT_BENCH_STALLS: '1' } : { NODE_OPTIONS: '--expose-gc' }),
			},
		});
		await server.setupOwnerAndLogin();
		log(
			`n8n ${runtime.version} ready at ${server.url}; modes ${MODES.map((m) => m.id).join(', ')}`,
		);
		if (flags.scale) {
			const table = await runScale(server, resultsFile, {
				sizes: flags.scale.split(',').map(Number),
				modes: flags['scale-modes'] ? new Set(flags['scale-modes'].split(',')) : undefined,
				callMs: Number(flags['scale-call-ms']),
				log,
			});
			process.stdout.write(table);
			return;
		}
		const results = await Promise.all(MODES.map((mode) => runMode(server, resultsFile, mode)));
		process.stdout.write(render(results));
	} finally {
		await server?.stop();
		removeUserFolder(userFolder);
		fs.rmSync(work, { recursive: true, force: true });
	}
}

await main();
