// End-to-end in n8n's queue mode: what Call → Create's guards hold when executions run on two worker
// processes. Within one process every execution shares the node's claims and its hourly count; across
// processes only the service's call list is shared. Measured here, with the packed package on a main,
// one webhook processor and two workers (Redis, PostgreSQL 17; scripts/lib/n8n-queue.mjs):
// - a CRM that delivers each new lead twice at the same moment: how many numbers are phoned twice, and
//   whether the pairs that ran on one worker ever were (they must not be);
// - Max Calls per Hour with more leads than the budget arriving at once: how far the two workers
//   together get past it (never more than the budget on each).
// The figures are logged; docs/scaling.md states them. What is asserted is what holds whatever the timing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { packPackage } from '../../scripts/lib/community-package.mjs';
import { postConcurrently } from '../../scripts/lib/event-load.mjs';
import { importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { startQueueCluster } from '../../scripts/lib/n8n-queue.mjs';
import { ensureRuntime } from '../../scripts/lib/runtime-install.mjs';
import { voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-queue-guards-key';
const CREDENTIAL = { id: 'VoiceAgentQueueGuards', name: 'Voice Agent (sandbox)' };
/** The Voice Agent node version whose guards are shared by the executions of a process. */
const NODE_VERSION = 1.4;
const LEADS_PER_ROUND = 20;
/**
 * Each round: POST /call's time at the service (the wider, the more deliveries overlap it), and the node's
 * Calls at Once (1, the default: a worker places one call at a time; 5: a worker's executions overlap).
 */
const ROUNDS = [
	{ latency: 0, callsAtOnce: 1 },
	{ latency: 300, callsAtOnce: 1 },
	{ latency: 0, callsAtOnce: 5 },
	{ latency: 300, callsAtOnce: 5 },
];
const HOURLY_BUDGET = 5;
const BUDGET_LEADS = 20;
const log = (line) => console.log(`[e2e queue guards] ${line}`);

let sandbox;
let api;
let pack;
let cluster;
const ids = {};

/** Webhook (answers at once) → Call → Create from the agent the body names to its `phone`. */
function leadWorkflow(name, path, webhookId, options) {
	return {
		name,
		nodes: [
			{
				name: 'New lead',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId,
				parameters: { httpMethod: 'POST', path, options: {} },
			},
			{
				name: 'Call',
				type: 'n8n-nodes-voice-agent.voiceAgent',
				typeVersion: NODE_VERSION,
				position: [200, 0],
				parameters: {
					resource: 'call',
					operation: 'create',
					from: { __rl: true, mode: 'id', value: '={{ $json.body.agent }}' },
					to: '={{ $json.body.phone }}',
					options: {
						allowedDestinations: '+1650',
						callsAtOnce: '={{ $json.body.callsAtOnce ?? 1 }}',
						...options,
					},
				},
				credentials: { voiceAgentApi: CREDENTIAL },
			},
		],
		connections: { 'New lead': { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
	};
}

/** How many times each number was dialled (POST /call answered 2xx), from the sandbox's request log. */
async function dialled() {
	const counts = {};
	for (const request of await api.requestLog()) {
		if (request.method !== 'POST' || request.path !== '/v1/call') continue;
		if (!(request.status >= 200 && request.status < 300)) continue;
		counts[request.body.to] = (counts[request.body.to] ?? 0) + 1;
	}
	return counts;
}

/** Which worker (0 or 1) ran each execution, from the workers' logs. */
function workerOf() {
	const byId = new Map();
	cluster.executionsByWorker().forEach((list, worker) => {
		for (const id of list) byId.set(id, worker);
	});
	return byId;
}

/**
 * The `count` executions of a workflow that came after the `seen` earlier ones, once all have finished,
 * each with the number its lead named.
 */
async function newExecutions(workflowId, seen, count) {
	const deadline = Date.now() + 180_000;
	for (;;) {
		const total = await cluster.main.rest.countExecutions({ workflowId });
		const newest = await cluster.main.rest.listExecutions({ workflowId, limit: count });
		const finished = newest.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		if (total >= seen + count && finished.length === count) {
			return await Promise.all(
				newest.map(async ({ id }) => {
					const execution = await cluster.main.rest.getExecution(id);
					const lead = execution.data.resultData.runData['New lead'][0].data.main[0][0].json;
					return { id: String(id), status: execution.status, phone: lead.body.phone };
				}),
			);
		}
		assert.ok(
			Date.now() < deadline,
			`${total} of ${seen + count} executions, ${finished.length} of the newest ${count} finished`,
		);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

before(async () => {
	const started = Date.now();
	const runtime = await ensureRuntime({ log: (line) => console.log(`[n8n-runtime] ${line}`) });
	pack = await packPackage();
	sandbox = await startEmptySandbox(API_KEY);
	api = sandboxClient(sandbox, API_KEY);
	cluster = await startQueueCluster({
		tarball: pack.tarball,
		runtime,
		workers: 2,
		webhookProcessors: 1,
		log,
	});
	log(`queue mode up in ${Math.round((Date.now() - started) / 1000)} s`);
	await cluster.main.setupOwnerAndLogin();
	const options = { env: cluster.env, runtime };
	await importCredentials(
		cluster.main.userFolder,
		[voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl)],
		options,
	);
	[ids.leads, ids.budget] = await importWorkflows(
		cluster.main.userFolder,
		[
			leadWorkflow(
				'E2E queue: call each new lead',
				'queue-new-lead',
				'7a2e9d2f-3001-4c11-9a01-00000000b001',
				{},
			),
			leadWorkflow(
				'E2E queue: call leads within a budget',
				'queue-budget-lead',
				'7a2e9d2f-3002-4c11-9a01-00000000b002',
				{
					maxCallsPerHour: HOURLY_BUDGET,
				},
			),
		],
		options,
	);
	for (const id of Object.values(ids)) await cluster.main.rest.activateWorkflow(id);
});

after(async () => {
	await cluster?.stop();
	await sandbox?.close();
	pack?.remove();
});

describe(
	'Queue mode, two workers: what the guards hold across processes',
	{ timeout: 900_000 },
	() => {
		test('each lead delivered twice at once: a pair run on one worker phones once; measured across workers', async () => {
			const agent = await api.call('POST', '/agent', { name: 'Queue Lead Desk', area_code: '650' });
			const figures = { pairs: 0, twice: 0, split: 0, splitTwice: 0, sameWorkerTwice: 0 };
			let seen = 0;
			for (const [round, { latency, callsAtOnce }] of ROUNDS.entries()) {
				await api.clearRequestLog();
				await api.control(
					'POST',
					'/faults',
					latency ? { match: 'POST /call', latency_ms: latency } : {},
				);
				const leads = Array.from(
					{ length: LEADS_PER_ROUND },
					(_, index) => `+1650557${round}${String(index).padStart(3, '0')}`,
				);
				const bodies = leads.flatMap((phone) =>
					[1, 2].map(() => ({ agent: agent.id, phone, callsAtOnce })),
				);
				const sent = await postConcurrently(cluster.webhookUrl('queue-new-lead'), bodies, {
					concurrency: bodies.length,
				});
				assert.deepEqual(sent.failures, []);
				const executions = await newExecutions(ids.leads, seen, bodies.length);
				seen += bodies.length;
				const counts = await dialled();
				const workers = workerOf();
				let roundTwice = 0;
				let roundSplit = 0;
				for (const phone of leads) {
					const pair = executions.filter((execution) => execution.phone === phone);
					assert.equal(pair.length, 2, `${phone}: two executions`);
					const split = workers.get(pair[0].id) !== workers.get(pair[1].id);
					const times = counts[phone] ?? 0;
					// Whatever the timing: dialled at least once, at most once per worker.
					assert.ok(times >= 1 && times <= 2, `${phone} dialled ${times} times`);
					figures.pairs++;
					if (split) {
						figures.split++;
						roundSplit++;
					}
					if (times === 2) {
						roundTwice++;
						figures.twice++;
						if (split) figures.splitTwice++;
						else figures.sameWorkerTwice++;
					}
				}
				log(
					`round ${round + 1} (POST /call ${latency} ms, Calls at Once ${callsAtOnce}): ${roundTwice} of ${leads.length} leads phoned twice, ${roundSplit} pairs on two workers; ${executions.filter((e) => e.status !== 'success').length} executions not successful`,
				);
			}
			await api.control('POST', '/faults', {});
			log(
				`duplicate deliveries across two workers: ${figures.twice} of ${figures.pairs} leads phoned twice; ${figures.split} pairs ran on two workers (${figures.splitTwice} of them phoned twice), ${figures.pairs - figures.split} on one (${figures.sameWorkerTwice} phoned twice)`,
			);
			// In one process the claims hold: a pair that ran on one worker never phones twice.
			assert.equal(figures.sameWorkerTwice, 0);
		});

		test(`Max Calls per Hour (${HOURLY_BUDGET}) with ${BUDGET_LEADS} leads at once on two workers: at most the budget on each`, async () => {
			const overshoots = [];
			let seen = 0;
			for (const [round, latency] of [0, 300].entries()) {
				const agent = await api.call('POST', '/agent', {
					name: `Queue Budget Desk ${round + 1}`,
					area_code: '650',
				});
				await api.clearRequestLog();
				await api.control(
					'POST',
					'/faults',
					latency ? { match: 'POST /call', latency_ms: latency } : {},
				);
				const bodies = Array.from({ length: BUDGET_LEADS }, (_, index) => ({
					agent: agent.id,
					phone: `+1650558${round}${String(index).padStart(3, '0')}`,
				}));
				const sent = await postConcurrently(cluster.webhookUrl('queue-budget-lead'), bodies, {
					concurrency: bodies.length,
				});
				assert.deepEqual(sent.failures, []);
				const executions = await newExecutions(ids.budget, seen, bodies.length);
				seen += bodies.length;
				const placed = Object.values(await dialled()).reduce((sum, times) => sum + times, 0);
				const workers = workerOf();
				const placedBy = [0, 0];
				for (const execution of executions) {
					assert.ok(workers.has(execution.id), `execution ${execution.id} ran on a worker`);
					if (execution.status === 'success') placedBy[workers.get(execution.id)]++;
				}
				log(
					`budget round ${round + 1} (POST /call ${latency} ms): ${placed} calls placed for a budget of ${HOURLY_BUDGET} (worker 1: ${placedBy[0]}, worker 2: ${placedBy[1]}); ${executions.length - placedBy[0] - placedBy[1]} refused`,
				);
				overshoots.push(placed - HOURLY_BUDGET);
				// Each process holds the budget for its own executions: two workers place at most twice it.
				assert.ok(placed >= HOURLY_BUDGET && placed <= 2 * HOURLY_BUDGET, `${placed} placed`);
				for (const count of placedBy) assert.ok(count <= HOURLY_BUDGET, `${count} on one worker`);
			}
			await api.control('POST', '/faults', {});
			log(`budget overshoot across two workers: ${overshoots.join(', ')} calls`);
		});
	},
);
