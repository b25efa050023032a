#!/usr/bin/env node
// Event throughput: events per second through the Voice Agent Trigger beside n8n's own Webhook node,
// on the same machine with the same load generator, in a single `n8n start` and in queue mode
// (main, two workers, webhook processors behind a load balancer, on Redis and PostgreSQL). A
// benchmark, not a test: it prints Markdown tables.
//
//   npm run bench:events -- [--mode single|queue|both|paced] [--events 1000] [--concurrency 25]
//                           [--rounds 3] [--webhook-processors 1[,2]]
//                           [--rates 5,10,15,20] [--seconds 20]   (paced only)
//                           [--env NAME=VALUE ...]   (n8n settings for every n8n process)
//
// `paced` (bench/events-paced.mjs) sends as the service does, at steady rates per webhook processor,
// each answer awaited at most 10 s, to the trigger with and without Include Call Details, in queue
// mode with each number of webhook processors given: the rate at which answers stay within the
// service's timeout.
//
// Each workflow is its trigger alone, answering at once. A round sends the same number of events to
// each workflow in turn (the order rotates between rounds) and waits for every execution to finish:
// "accepted/s" is events over the time until the last answer, "done/s" events over the time until
// the last execution finished, "lost" events that were not answered 200 or never became a successful
// execution. The third workflow is the Webhook node with one expression among its parameters: n8n
// 2.x then evaluates its webhook settings in an expression isolate, as it does for every other
// trigger node.
import os from 'node:os';
import { parseArgs } from 'node:util';

import { installPackage, packPackage } from '../scripts/lib/community-package.mjs';
import { postConcurrently } from '../scripts/lib/event-load.mjs';
import { importCredentials, importWorkflows } from '../scripts/lib/n8n-cli.mjs';
import { startQueueCluster } from '../scripts/lib/n8n-queue.mjs';
import { startN8nServer } from '../scripts/lib/n8n-server.mjs';
import { ensureRuntime } from '../scripts/lib/runtime-install.mjs';
import { createUserFolder, removeUserFolder } from '../scripts/lib/user-folder.mjs';
import { sandboxClient, startEmptySandbox } from '../test/e2e/support/sandbox-client.mjs';
import { pacedTable, runPaced } from './events-paced.mjs';

const { values: flags } = parseArgs({
	options: {
		mode: { type: 'string', default: 'both' },
		events: { type: 'string', default: '1000' },
		concurrency: { type: 'string', default: '25' },
		rounds: { type: 'string', default: '3' },
		'webhook-processors': { type: 'string', default: '1' },
		rates: { type: 'string', default: '5,10,15,20' },
		seconds: { type: 'string', default: '20' },
		// n8n settings for every process, e.g. --env N8N_EXPRESSION_ENGINE=legacy
		env: { type: 'string', multiple: true, default: [] },
	},
});
const N8N_SETTINGS = Object.fromEntries(
	flags.env.map((setting) => [
		setting.slice(0, setting.indexOf('=')),
		setting.slice(setting.indexOf('=') + 1),
	]),
);
const EVENTS = Number(flags.events);
const CONCURRENCY = Number(flags.concurrency);
const ROUNDS = Number(flags.rounds);
const numbers = (list) => list.split(',').map(Number);
const PROCESSORS = numbers(flags['webhook-processors']);
const API_KEY = 'bench-key';
const CREDENTIAL = { id: 'VoiceAgentBench1', name: 'Voice Agent (sandbox)' };
const log = (line) => process.stderr.write(`[bench] ${line}\n`);

const TARGETS = [
	{ key: 'trigger', label: 'Voice Agent Trigger' },
	{ key: 'webhook', label: 'Webhook node' },
	{ key: 'webhookExpression', label: 'Webhook node, one expression' },
];

function workflows(agentId) {
	const alone = (name, node) => ({ name, nodes: [{ position: [0, 0], ...node }], connections: {} });
	const webhookNode = (path, webhookId, options) =>
		alone(`Bench: ${path}`, {
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId,
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options },
		});
	return {
		trigger: alone('Bench: Voice Agent Trigger', {
			name: 'Voice Agent Trigger',
			type: 'n8n-nodes-voice-agent.voiceAgentTrigger',
			typeVersion: 1,
			webhookId: '5b0c2f4e-0001-4c11-9a01-00000000be01',
			parameters: {
				agent: { __rl: true, mode: 'id', value: agentId },
				events: ['call_ended'],
				responseMode: 'onReceived',
				options: {},
			},
			credentials: { voiceAgentApi: CREDENTIAL },
		}),
		webhook: webhookNode('bench-events', '5b0c2f4e-0002-4c11-9a01-00000000be02', {}),
		webhookExpression: webhookNode(
			'bench-events-expression',
			'5b0c2f4e-0003-4c11-9a01-00000000be03',
			{
				ignoreBots: '={{ false }}',
			},
		),
	};
}

/** Successful executions of a workflow, and when the latest of them stopped. */
async function executionsDone(rest, workflowId) {
	const filter = { workflowId, status: 'success' };
	const count = await rest.countExecutions(filter);
	const latest = await rest.listExecutions({ ...filter, limit: 50 });
	const lastStop = Math.max(0, ...latest.map((execution) => Date.parse(execution.stoppedAt) || 0));
	return { count, lastStop };
}

async function waitUntilDone(rest, workflowId, expected) {
	let last = { count: -1 };
	let stableSince = Date.now();
	for (;;) {
		const now = await executionsDone(rest, workflowId);
		if (now.count >= expected) return now;
		if (now.count !== last.count) stableSince = Date.now();
		// Nothing new for 20 s: the rest is lost.
		if (Date.now() - stableSince > 20_000) return now;
		last = now;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

async function measure(target, url, rest, workflowId, round) {
	const before = (await executionsDone(rest, workflowId)).count;
	const events = Array.from({ length: EVENTS }, (_, index) => ({
		event_type: 'call_ended',
		call_id: `call_${target.key}_${round}_${index}`,
		timestamp: new Date().toISOString(),
		data: { status: 'completed' },
	}));
	const started = Date.now();
	const sent = await postConcurrently(url, events, { concurrency: CONCURRENCY });
	const done = await waitUntilDone(rest, workflowId, before + EVENTS);
	const executed = done.count - before;
	return {
		accepted: EVENTS / (sent.ms / 1000),
		done: executed / ((done.lastStop - started) / 1000),
		lost: EVENTS - Math.min(executed, EVENTS - sent.failures.length),
		failures: sent.failures.slice(0, 3),
	};
}

async function runMode(mode, { runtime, pack, sandbox, api, agent, processors = 1 }) {
	const started = Date.now();
	let stop;
	let main;
	let env;
	let baseUrl;
	if (mode === 'queue') {
		const cluster = await startQueueCluster({
			tarball: pack.tarball,
			runtime,
			webhookProcessors: processors,
			extraEnv: N8N_SETTINGS,
			log,
		});
		({ main, env } = cluster);
		baseUrl = cluster.webhookBase;
		stop = () => cluster.stop();
	} else {
		const userFolder = createUserFolder();
		await installPackage(userFolder, pack.tarball);
		main = await startN8nServer(userFolder, { runtime, env: N8N_SETTINGS });
		baseUrl = main.url;
		stop = async () => {
			await main.stop();
			removeUserFolder(userFolder);
		};
	}
	const live = [];
	try {
		await main.setupOwnerAndLogin();
		const options = { runtime, env };
		const credential = {
			...CREDENTIAL,
			type: 'voiceAgentApi',
			data: { apiKey: API_KEY, baseUrl: sandbox.baseUrl },
		};
		await importCredentials(main.userFolder, [credential], options);
		const byKey = workflows(agent.id);
		const ids = await importWorkflows(
			main.userFolder,
			TARGETS.map((target) => byKey[target.key]),
			options,
		);
		for (const id of ids) {
			await main.rest.activateWorkflow(id);
			live.push(id);
		}
		const { webhook } = await api.call('GET', `/agent?id=${agent.id}`);
		const urls = {
			trigger: webhook,
			webhook: `${baseUrl}/webhook/bench-events`,
			webhookExpression: `${baseUrl}/webhook/bench-events-expression`,
		};
		log(`${mode}: n8n ready in ${Math.round((Date.now() - started) / 1000)} s; warming up`);
		const warmUp = Math.min(100, EVENTS);
		for (const [index, target] of TARGETS.entries()) {
			await postConcurrently(
				urls[target.key],
				// Distinct events: the trigger answers a repeated one as a redelivery and starts nothing.
				Array.from({ length: warmUp }, (_, index) => ({
					event_type: 'call_ended',
					call_id: `call_warm_up_${index}`,
				})),
				{
					concurrency: CONCURRENCY,
				},
			);
			await waitUntilDone(main.rest, ids[index], warmUp);
		}
		const results = Object.fromEntries(TARGETS.map((target) => [target.key, []]));
		for (let round = 0; round < ROUNDS; round++) {
			const order = TARGETS.map((_, index) => TARGETS[(index + round) % TARGETS.length]);
			for (const target of order) {
				const id = ids[TARGETS.indexOf(target)];
				const result = await measure(target, urls[target.key], main.rest, id, round);
				log(
					`${mode} round ${round + 1} ${target.label}: ${result.accepted.toFixed(1)} accepted/s, ${result.done.toFixed(1)} done/s, lost ${result.lost} ${result.failures.join(' | ')}`,
				);
				results[target.key].push(result);
			}
		}
		return results;
	} finally {
		// Unpublished, the trigger gives the agent back: the next mode registers it afresh.
		for (const id of live) await main.rest.deactivateWorkflow(id);
		await stop();
	}
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function table(mode, results) {
	const rows = TARGETS.map((target) => {
		const runs = results[target.key];
		return {
			target,
			accepted: median(runs.map((run) => run.accepted)),
			done: median(runs.map((run) => run.done)),
			lost: runs.reduce((sum, run) => sum + run.lost, 0),
		};
	});
	const reference = rows.find((row) => row.target.key === 'webhook').done;
	return rows.map(
		(row) =>
			`| ${mode} | ${row.target.label} | ${row.accepted.toFixed(1)} | ${row.done.toFixed(1)} | ${(row.done / reference).toFixed(2)}× | ${row.lost} |`,
	);
}

async function main() {
	const runtime = await ensureRuntime({ log });
	const pack = await packPackage();
	// Calls placed for Include Call Details stay live for the whole benchmark (no call_ended of theirs).
	const sandbox = await startEmptySandbox(API_KEY, { callDurationMs: 24 * 60 * 60 * 1000 });
	const api = sandboxClient(sandbox, API_KEY);
	const settingsNote = flags.env.length ? ` with ${flags.env.join(' ')}` : '';
	try {
		if (flags.mode === 'paced') {
			const rows = [];
			for (const processors of PROCESSORS) {
				rows.push(
					...(await runPaced({
						runtime,
						pack,
						api,
						sandbox,
						credential: CREDENTIAL,
						apiKey: API_KEY,
						processors,
						rates: numbers(flags.rates),
						seconds: Number(flags.seconds),
						settings: N8N_SETTINGS,
						waitUntilDone,
						log,
					})),
				);
			}
			console.log(
				[
					`Voice Agent Trigger in queue mode (two workers), n8n ${runtime.version}${settingsNote}, ` +
						`events sent at a steady rate for ${flags.seconds} s each, answers awaited 10 s:`,
					'',
					...pacedTable(rows),
				].join('\n'),
			);
			return;
		}
		const agent = await api.call('POST', '/agent', { name: 'Bench Agent', area_code: '415' });
		const modes = flags.mode === 'both' ? ['single', 'queue'] : [flags.mode];
		console.log(
			[
				`Events per second, n8n ${runtime.version}${settingsNote}, ` +
					`${EVENTS} events per round at ${CONCURRENCY} in flight, median of ${ROUNDS} rounds:`,
				'',
				'| n8n | workflow | accepted/s | done/s | vs Webhook node | lost |',
				'|---|---|---:|---:|---:|---:|',
			].join('\n'),
		);
		for (const mode of modes) {
			for (const processors of mode === 'queue' ? PROCESSORS : [1]) {
				const load = os.loadavg()[0];
				const results = await runMode(mode, { runtime, pack, sandbox, api, agent, processors });
				const label =
					mode === 'queue'
						? `queue mode, ${processors} webhook processor${processors > 1 ? 's' : ''}`
						: 'n8n start';
				console.log(table(label, results).join('\n'));
				log(
					`${mode}: load average ${load.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after (${os.cpus().length} cores)`,
				);
			}
		}
	} finally {
		await sandbox.close();
		pack.remove();
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
