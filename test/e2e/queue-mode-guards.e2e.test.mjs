// End-to-end in n8n's queue mode: what Call → Create's guards hold when executions run on two worker
// processes. Within one process every execution shares the node's claims and its hourly count; across
// processes only the service's call list is shared. Measured here, with the packed package on a main,
// one webhook processor and two workers (Redis, PostgreSQL 17; scripts/lib/n8n-queue.mjs):
// - a CRM that delivers each new lead twice at the same moment: how many numbers are phoned twice, and
//   whether the pairs that ran on one worker ever were (they must not be);
// - Max Calls per Hour with more leads than the budget arriving at once: how far the two workers
//   together get past it (never more than the budget on each).
// - Against the sandbox's live profile (a second account): Create + Wait for the Call to End (the call rings
//   2 s, talks 6 s); two processes (a worker, and the main running the workflow by hand) wanting one number
//   4 s apart while the first call rings: phoned once; and what that guard costs a list spread over the two
//   workers, beside the documented profile (E2E_RINGING_LEADS leads, 40 unless set; docs/scaling.md).
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
const LIVE_KEY = 'e2e-queue-guards-live-key';
const LIVE_CREDENTIAL = { id: 'VoiceAgentQueueLive', name: 'Voice Agent (live sandbox)' };
const LIVE_DESK = 'Queue Live Desk';
/** The list spread over the two workers, in deliveries of 10 leads; docs/scaling.md ran 1,000. */
const RINGING_LEADS = Number(process.env.E2E_RINGING_LEADS ?? 40);
const HOURLY_BUDGET = 5;
const BUDGET_LEADS = 20;
const log = (line) => console.log(`[e2e queue guards] ${line}`);

let sandbox;
let api;
let liveApi;
let pack;
let cluster;
const ids = {};

/** Webhook (answers at once) → Call → Create from the agent the body names to its `phone`. */
function leadWorkflow(name, path, webhookId, options, credential = CREDENTIAL) {
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
				credentials: { voiceAgentApi: credential },
			},
		],
		connections: { 'New lead': { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
	};
}

/** Run by hand (on the main: another process than the workers) → Call → Create from the live desk. */
function manualCallWorkflow(name, to, options) {
	const nodes = [
		{ name: 'Run', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
		{
			name: 'Call',
			type: 'n8n-nodes-voice-agent.voiceAgent',
			typeVersion: NODE_VERSION,
			position: [200, 0],
			parameters: {
				resource: 'call',
				operation: 'create',
				from: { __rl: true, mode: 'name', value: LIVE_DESK },
				to,
				context: 'Renewal call',
				options: { allowedDestinations: '+1650', ...options },
			},
			credentials: { voiceAgentApi: LIVE_CREDENTIAL },
		},
	];
	return {
		name,
		nodes,
		connections: { Run: { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
	};
}

/** Webhook with `{ leads: [{ agent, phone }] }` → one item per lead → Call → Create, 5 at once. */
function listWorkflow(name, path, webhookId, credential) {
	const create = leadWorkflow(name, path, webhookId, {}, credential).nodes[1];
	const nodes = [
		{
			name: 'New leads',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId,
			parameters: { httpMethod: 'POST', path, options: {} },
		},
		{
			name: 'One item per lead',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [200, 0],
			parameters: { fieldToSplitOut: 'body.leads', include: 'noOtherFields', options: {} },
		},
		{
			...create,
			position: [400, 0],
			parameters: {
				...create.parameters,
				from: { __rl: true, mode: 'id', value: '={{ $json.agent }}' },
				to: '={{ $json.phone }}',
				options: { allowedDestinations: '+1650', callsAtOnce: 5 },
			},
		},
	];
	const to = (node) => ({ main: [[{ node, type: 'main', index: 0 }]] });
	return {
		name,
		nodes,
		connections: { 'New leads': to('One item per lead'), 'One item per lead': to('Call') },
	};
}

/** The Call node's items of a finished execution. */
const callItems = (execution) =>
	execution.data.resultData.runData.Call[0].data.main[0].map((item) => item.json);

/** POST /call that created a call, per number, from a client's request log (a 500 after placing too). */
async function dialsOf(client) {
	const counts = {};
	for (const request of await client.requestLog()) {
		if (request.method !== 'POST' || request.path !== '/v1/call' || !request.created_call_id)
			continue;
		counts[request.body.to] = (counts[request.body.to] ?? 0) + 1;
	}
	return counts;
}

/** Polls until `check` gives a value. */
async function until(what, check, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
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
	// Two accounts: the documented service, and the live one (its calls ring before they connect).
	sandbox = await startEmptySandbox(API_KEY, {
		apiKeys: [API_KEY, LIVE_KEY],
		profiles: { [LIVE_KEY]: 'live' },
	});
	api = sandboxClient(sandbox, API_KEY);
	liveApi = sandboxClient(sandbox, LIVE_KEY);
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
		[
			voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
			voiceAgentCredential(LIVE_CREDENTIAL, LIVE_KEY, sandbox.baseUrl),
		],
		options,
	);
	[ids.leads, ids.budget, ids.liveLead, ids.liveWait, ids.liveSecond, ids.docList, ids.liveList] =
		await importWorkflows(
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
				leadWorkflow(
					'E2E queue live: call a lead',
					'queue-live-lead',
					'7a2e9d2f-3003-4c11-9a01-00000000b003',
					{},
					LIVE_CREDENTIAL,
				),
				manualCallWorkflow('E2E queue live: call and wait', '+16505590001', {
					waitForEnd: true,
					maxWaitMinutes: 1,
					firstCheckSeconds: 1,
				}),
				manualCallWorkflow(
					'E2E queue live: the same lead from another process',
					'+16505590002',
					{},
				),
				listWorkflow(
					'E2E queue: a list over two workers',
					'queue-doc-list',
					'7a2e9d2f-3004-4c11-9a01-00000000b004',
					CREDENTIAL,
				),
				listWorkflow(
					'E2E queue live: a list over two workers',
					'queue-live-list',
					'7a2e9d2f-3005-4c11-9a01-00000000b005',
					LIVE_CREDENTIAL,
				),
			],
			options,
		);
	for (const id of [ids.leads, ids.budget, ids.liveLead, ids.docList, ids.liveList])
		await cluster.main.rest.activateWorkflow(id);
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

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ID of the call the newest POST /call created, once there is one. */
const createdCall = (client) =>
	until('the call', async () => {
		const posts = (await client.requestLog()).filter(
			(request) => request.method === 'POST' && request.path === '/v1/call',
		);
		return posts.at(-1)?.created_call_id;
	});

describe(
	'Queue mode, two processes, the live service: a call that rings',
	{ timeout: 1_800_000 },
	() => {
		let desk;
		before(async () => {
			desk = await liveApi.call('POST', '/agent', { name: LIVE_DESK, area_code: '650' });
		});

		test('Create + Wait for the Call to End, the call ringing 2 s and talking 6 s: the item once ended, with its transcript', async () => {
			// Calls connect when the test says so: after 2 s, for 6 s.
			await liveApi.control('POST', '/live', { ring_ms: 600_000 });
			await liveApi.clearRequestLog();
			const executionId = await cluster.main.rest.runManually(ids.liveWait, 'Run');
			const callId = await createdCall(liveApi);
			await pause(2_000);
			await liveApi.control('POST', `/calls/${callId}/connect`, { call_duration_ms: 6_000 });
			const [item] = callItems(await cluster.main.rest.waitForExecution(executionId));
			assert.equal(item.id, String(callId));
			assert.equal(item.ended, true);
			assert.equal(item.status, 'completed');
			assert.equal(item.outcome, 'ended');
			assert.equal(item.never_connected, undefined);
			assert.ok(item.transcript.length > 1, 'the conversation');
			assert.ok(item.transcript.every((turn) => ['agent', 'customer'].includes(turn.speaker)));
			assert.deepEqual(await dialsOf(liveApi), { '+16505590001': 1 });
		});

		test('a worker and the main want one number 4 s apart, skip window 15, the first call still ringing: phoned once', async () => {
			await liveApi.control('POST', '/live', { ring_ms: 600_000 });
			await liveApi.clearRequestLog();
			const to = '+16505590002';
			const sent = await postConcurrently(
				cluster.webhookUrl('queue-live-lead'),
				[{ agent: desk.id, phone: to }],
				{ concurrency: 1 },
			);
			assert.deepEqual(sent.failures, []);
			const callId = await createdCall(liveApi);
			await pause(4_000);
			const secondAt = Date.now();
			const executionId = await cluster.main.rest.runManually(ids.liveSecond, 'Run');
			// The main's execution waits while the worker's call rings with no number: it reads that call by ID.
			await until('the second process waiting for the ringing call', async () =>
				(await liveApi.requestLog()).some(
					(request) =>
						request.method === 'GET' &&
						request.path === '/v1/call' &&
						String(request.query.id) === String(callId),
				)
					? true
					: undefined,
			);
			await pause(2_000);
			await liveApi.control('POST', `/calls/${callId}/connect`, { call_duration_ms: 60_000 });
			const [item] = callItems(await cluster.main.rest.waitForExecution(executionId));
			const waitedMs = Date.now() - secondAt;
			assert.equal(item.skipped, true);
			assert.equal(item.id, String(callId));
			assert.deepEqual(await dialsOf(liveApi), { [to]: 1 });
			const [first] = await cluster.main.rest.listExecutions({
				workflowId: ids.liveLead,
				limit: 1,
			});
			const onWorker = cluster.executionsByWorker().some((list) => list.includes(String(first.id)));
			assert.ok(onWorker, 'the first call was placed by a worker');
			log(
				`two processes 4 s apart, the first call ringing: phoned once; the second waited ${waitedMs} ms, until the call connected`,
			);
		});

		test(`a list of ${RINGING_LEADS} leads over two workers, skip window 15, documented and live profile: each phoned once, and what the wait for ringing calls costs`, async () => {
			await liveApi.control('POST', '/live', { ring_ms: 2_000 });
			const runs = [
				{
					profile: 'documented',
					client: api,
					path: 'queue-doc-list',
					workflowId: ids.docList,
					prefix: '+1650563',
				},
				{
					profile: 'live',
					client: liveApi,
					path: 'queue-live-list',
					workflowId: ids.liveList,
					prefix: '+1650564',
				},
			];
			for (const { profile, client, path, workflowId, prefix } of runs) {
				const agent = await client.call('POST', '/agent', {
					name: 'Queue List Desk',
					area_code: '650',
				});
				await client.clearRequestLog();
				const leads = Array.from({ length: RINGING_LEADS }, (_, index) => ({
					agent: agent.id,
					phone: `${prefix}${String(index + 1).padStart(4, '0')}`,
				}));
				const bodies = [];
				for (let at = 0; at < leads.length; at += 10)
					bodies.push({ leads: leads.slice(at, at + 10) });
				const startedAt = Date.now();
				const sent = await postConcurrently(cluster.webhookUrl(path), bodies, {
					concurrency: bodies.length,
				});
				assert.deepEqual(sent.failures, []);
				await until(
					`${bodies.length} executions`,
					async () =>
						(await cluster.main.rest.countExecutions({ workflowId })) >= bodies.length
							? true
							: undefined,
					1_500_000,
				);
				const executions = await cluster.main.rest.listExecutions({
					workflowId,
					limit: bodies.length,
				});
				const seconds = (Date.now() - startedAt) / 1000;
				assert.deepEqual(
					executions.filter((execution) => execution.status !== 'success').map((e) => e.id),
					[],
				);
				const dials = await dialsOf(client);
				assert.equal(Object.keys(dials).length, leads.length);
				assert.ok(
					Object.values(dials).every((times) => times === 1),
					'each lead phoned once',
				);
				const requests = (await client.requestLog()).filter((r) => r.path.startsWith('/v1/'));
				const count = (method, route) =>
					requests.filter((r) => r.method === method && r.path === route).length;
				const workers = workerOf();
				const perWorker = [0, 1].map(
					(worker) => executions.filter((e) => workers.get(String(e.id)) === worker).length,
				);
				log(
					`${profile}: ${leads.length} leads in ${bodies.length} deliveries (worker 1: ${perWorker[0]}, worker 2: ${perWorker[1]} executions): ${seconds.toFixed(1)} s; requests ${requests.length} (POST /call ${count('POST', '/v1/call')}, GET /calls ${count('GET', '/v1/calls')}, GET /call ${count('GET', '/v1/call')}, per lead ${(requests.length / leads.length).toFixed(2)})`,
				);
			}
		});
	},
);
