// End-to-end in n8n's queue mode, as teams run it at scale: Redis and PostgreSQL 17, a main
// (`n8n start`), two workers (`n8n worker`) and two webhook processors (`n8n webhook`) behind a
// round-robin load balancer, each with the packed package installed the way users install it. The
// trigger registers from the main, events arrive at the webhook processors and run on the workers;
// 300 calls ending at once, sent by the service itself with its timeout and retries, each run once;
// a Voice Agent workflow runs on a worker;
// the Call History Trigger polls on the main and its runs go to the workers; renaming the trigger,
// a restart of the main and unpublishing keep or restore the agent's webhook as they should.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { packPackage } from '../../scripts/lib/community-package.mjs';
import { atPace, postConcurrently, startCollector } from '../../scripts/lib/event-load.mjs';
import { importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { startQueueCluster } from '../../scripts/lib/n8n-queue.mjs';
import { ensureRuntime } from '../../scripts/lib/runtime-install.mjs';
import { voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-queue-key';
const CREDENTIAL = { id: 'VoiceAgentQueue1', name: 'Voice Agent (sandbox)' };
const TRIGGER = 'n8n-nodes-voice-agent.voiceAgentTrigger';
const HISTORY_TRIGGER = 'n8n-nodes-voice-agent.voiceAgentCallHistoryTrigger';
const VOICE_AGENT = 'n8n-nodes-voice-agent.voiceAgent';
// Enough for both webhook processors and both workers to share the load; the burst suite sends 600 more.
const BURST = 400;
// 300 calls placed, then ended: about 600 events (call_started, call_ended), 8 a second in all, which two
// webhook processors sharing two cores with everything else answer within the service's 10 s (docs/scaling.md:
// about 6 a second each there). The same 600 events within 20 s (30 a second) are several times that: n8n
// falls behind, and the service gives events up (measured with `npm run bench:events -- --mode paced`).
const CALLS_ENDING = 300;
const EVENTS_PER_SECOND = 8;
// The service makes 4 attempts of up to 10 s each, 0.5 s apart (sandbox/webhooks.js).
const DELIVERY_SETTLE_MS = 180_000;
const PREVIOUS_WEBHOOK = 'https://crm.example.com/hooks/voice-agent?key=abc123';
const log = (line) => console.log(`[e2e queue] ${line}`);

let sandbox;
let api;
let pack;
let cluster;
let collector;
let historyCollector;
let burstAgent;
let endingAgent;
let endingCollector;
/** The calls of the burst of calls ending at once, and the service's attempts for each call_ended. */
let endingRun;
let historyAgent;
let listAgent;
const ids = {};

const credentials = { voiceAgentApi: CREDENTIAL };
const connect = (from, to) => ({ [from]: { main: [[{ node: to, type: 'main', index: 0 }]] } });

/** An HTTP Request node that POSTs the item's call ID and the execution's ID to the collector. */
function reportNode(
	collectorUrl,
	callIdExpression,
	{ name = 'Report', position = [240, 0], stage } = {},
) {
	const stageField = stage ? `stage: '${stage}', ` : '';
	return {
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position,
		parameters: {
			method: 'POST',
			url: collectorUrl,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ ${stageField}call_id: ${callIdExpression}, execution: $execution.id }) }}`,
			options: {},
		},
	};
}

/** Voice Agent Trigger on an agent's ended calls → report the call id and execution to the collector. */
function burstWorkflow(
	agentId,
	collectorUrl,
	{
		name = 'E2E queue: every ended call once',
		webhookId = '7a2e9d2f-1001-4c11-9a01-00000000a001',
	} = {},
) {
	return {
		name,
		nodes: [
			{
				name: 'Call ended',
				type: TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				webhookId,
				parameters: {
					agent: { __rl: true, mode: 'id', value: agentId },
					events: ['call_ended'],
					responseMode: 'onReceived',
					options: { replaceExistingWebhook: true },
				},
				credentials,
			},
			reportNode(collectorUrl, '$json.call_id'),
		],
		connections: connect('Call ended', 'Report'),
	};
}

/**
 * Voice Agent Trigger on an agent's ended calls → reports each run (`stage: "run"`), and → n8n's
 * Remove Duplicates on the item's dedupe_key (across executions, in n8n's database) → reports the
 * work done (`stage: "once"`), the recipe docs/triggers.md gives for several webhook processors.
 */
function endingWorkflow(agentId, collectorUrl) {
	const report = (name, stage, position) =>
		reportNode(collectorUrl, "$('Call ended').item.json.call_id", { name, position, stage });
	return {
		name: 'E2E queue: 300 calls ending at once',
		nodes: [
			{
				name: 'Call ended',
				type: TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				webhookId: '7a2e9d2f-1003-4c11-9a01-00000000a003',
				parameters: {
					agent: { __rl: true, mode: 'id', value: agentId },
					events: ['call_ended'],
					responseMode: 'onReceived',
					options: {},
				},
				credentials,
			},
			report('Report the run', 'run', [240, 0]),
			{
				name: 'Once per event',
				type: 'n8n-nodes-base.removeDuplicates',
				typeVersion: 2,
				position: [240, 200],
				parameters: {
					operation: 'removeItemsSeenInPreviousExecutions',
					logic: 'removeItemsWithAlreadySeenKeyValues',
					dedupeValue: '={{ $json.dedupe_key }}',
					options: {},
				},
			},
			report('Report the work', 'once', [480, 200]),
		],
		connections: {
			'Call ended': {
				main: [
					[
						{ node: 'Report the run', type: 'main', index: 0 },
						{ node: 'Once per event', type: 'main', index: 0 },
					],
				],
			},
			...connect('Once per event', 'Report the work'),
		},
	};
}

/**
 * A webhook (a CRM's list) → one item per lead → Call → Create (node version 1.2, its default Skip
 * Numbers Called in the Last (Minutes)), one call at a time, waiting for each to end.
 */
function callListWorkflow(agentId) {
	return {
		name: 'E2E queue: call a list of leads',
		nodes: [
			{
				name: 'Leads',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '7a2e9d2f-2004-4c11-9a01-00000000a004',
				parameters: {
					httpMethod: 'POST',
					path: 'queue-call-list',
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				name: 'One item per lead',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fieldToSplitOut: 'body.leads', include: 'noOtherFields', options: {} },
			},
			{
				name: 'Call each lead',
				type: VOICE_AGENT,
				typeVersion: 1.2,
				position: [400, 0],
				parameters: {
					resource: 'call',
					operation: 'create',
					from: { __rl: true, mode: 'id', value: agentId },
					to: '={{ $json.phone }}',
					context: 'Your policy renews next month.',
					options: { waitForEnd: true, maxWaitMinutes: 15, firstCheckSeconds: 1, callsAtOnce: 1 },
				},
				credentials,
			},
		],
		connections: {
			...connect('Leads', 'One item per lead'),
			...connect('One item per lead', 'Call each lead'),
		},
	};
}

/** Call History Trigger (Call Ended, one agent, from now on, every minute) → report each call. */
function historyWorkflow(agentId, collectorUrl) {
	return {
		name: 'E2E queue: ended calls from the call history',
		nodes: [
			{
				name: 'Ended calls',
				type: HISTORY_TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					event: 'callEnded',
					agent: { __rl: true, mode: 'id', value: agentId },
					filters: {},
					options: { startFrom: 'now' },
				},
				credentials,
			},
			reportNode(collectorUrl, '$json.id'),
		],
		connections: connect('Ended calls', 'Report'),
	};
}

/** A webhook (a CRM, say) → Get Many calls with transcripts → Create a call → Set Context. */
function voiceAgentWorkflow(agentId) {
	const node = (name, x, parameters, extra = {}) => ({
		name,
		type: VOICE_AGENT,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials,
		...extra,
	});
	return {
		name: 'E2E queue: Voice Agent operations on a worker',
		nodes: [
			{
				name: 'CRM',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '7a2e9d2f-2002-4c11-9a01-00000000a002',
				parameters: {
					httpMethod: 'POST',
					path: 'queue-follow-up',
					responseMode: 'lastNode',
					options: {},
				},
			},
			node('Recent calls', 200, {
				resource: 'call',
				operation: 'getMany',
				returnAll: false,
				limit: 3,
				agent: { __rl: true, mode: 'id', value: agentId },
				filters: {},
				options: { includeTranscripts: true },
			}),
			node(
				'Call back',
				400,
				{
					resource: 'call',
					operation: 'create',
					from: { __rl: true, mode: 'id', value: agentId },
					to: "={{ $('CRM').first().json.body.to }}",
					context: "=Follow-up on {{ $('Recent calls').all().length }} recent calls",
					options: {},
				},
				{ executeOnce: true },
			),
			node('Tell the agent', 600, {
				resource: 'call',
				operation: 'setContext',
				callId: '={{ $json.id }}',
				context: "={{ $('CRM').first().json.body.context }}",
			}),
		],
		connections: {
			...connect('CRM', 'Recent calls'),
			...connect('Recent calls', 'Call back'),
			...connect('Call back', 'Tell the agent'),
		},
	};
}

const callEnded = (index) => ({
	event_type: 'call_ended',
	call_id: `call_burst_${String(index).padStart(4, '0')}`,
	timestamp: new Date().toISOString(),
	data: { status: 'completed' },
});

const registeredWebhook = async (agentId) =>
	(await api.call('GET', `/agent?id=${agentId}`)).webhook;
const tokenOf = (webhook) => new URL(webhook).searchParams.get('token');

/** Every execution of the workflow, once none is still running (n8n's bare count leaves those out). */
const executionCount = (workflowId) => cluster.main.rest.settledExecutionCount(workflowId);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** A delivery attempt the service counts as delivered (a timeout or network error has no status). */
const delivered = (attempt) =>
	typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300;

/**
 * The service's attempts to deliver each call's event of this type, once every one of them was
 * delivered (2xx) or given up (4 attempts); bounded by `timeoutMs`, after which what is known is
 * returned.
 */
async function settledDeliveries(callIds, eventType, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const byCall = new Map(callIds.map((id) => [id, []]));
		for (const entry of await api.deliveries()) {
			if (entry.event_type === eventType) byCall.get(entry.call_id)?.push(entry);
		}
		const settled = [...byCall.values()].every(
			(attempts) => attempts.length >= 4 || attempts.some(delivered),
		);
		if (settled || Date.now() > deadline) return byCall;
		await sleep(1000);
	}
}

const tally = (values) => {
	const counts = {};
	for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
	return counts;
};

before(async () => {
	const started = Date.now();
	const runtime = await ensureRuntime({ log: (line) => console.log(`[n8n-runtime] ${line}`) });
	pack = await packPackage();
	sandbox = await startEmptySandbox(API_KEY);
	api = sandboxClient(sandbox, API_KEY);
	await api.control('POST', '/seed', { agents: 2, calls: 12 });
	collector = await startCollector();
	endingCollector = await startCollector();
	historyCollector = await startCollector();
	cluster = await startQueueCluster({
		tarball: pack.tarball,
		runtime,
		webhookProcessors: 2,
		log,
	});
	log(
		`queue mode up in ${Math.round((Date.now() - started) / 1000)} s: main ${cluster.main.url}, ${cluster.webhookProcessors.length} webhook processors behind ${cluster.webhookBase}, ${cluster.workers.length} workers`,
	);
	await cluster.main.setupOwnerAndLogin();

	const { agents } = await api.call('GET', '/agents?limit=100');
	[burstAgent] = agents;
	await api.call('POST', '/agent', { name: burstAgent.name, webhook: PREVIOUS_WEBHOOK });
	const options = { env: cluster.env, runtime };
	await importCredentials(
		cluster.main.userFolder,
		[voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl)],
		options,
	);
	historyAgent = await api.call('POST', '/agent', { name: 'E2E History Desk', area_code: '212' });
	endingAgent = await api.call('POST', '/agent', { name: 'E2E Busy Desk', area_code: '628' });
	listAgent = await api.call('POST', '/agent', { name: 'E2E Renewals Desk', area_code: '332' });
	[ids.burst, ids.ending, ids.operations, ids.history, ids.callList] = await importWorkflows(
		cluster.main.userFolder,
		[
			burstWorkflow(burstAgent.id, collector.url),
			endingWorkflow(endingAgent.id, endingCollector.url),
			voiceAgentWorkflow(agents[1].id),
			historyWorkflow(historyAgent.id, historyCollector.url),
			callListWorkflow(listAgent.id),
		],
		options,
	);
});

after(async () => {
	await cluster?.stop();
	await collector?.close();
	await endingCollector?.close();
	await historyCollector?.close();
	await sandbox?.close();
	pack?.remove();
});

describe(
	'Queue mode: main, two workers and two webhook processors behind a load balancer, on Redis and PostgreSQL',
	{ timeout: 900_000 },
	() => {
		test('every process runs on a PostgreSQL that n8n supports: none warns about its version', () => {
			assert.equal(cluster.postgres.version.split('.')[0], '17');
			const processes = [cluster.main, ...cluster.webhookProcessors, ...cluster.workers];
			const warnings = processes.flatMap(
				(process) =>
					process
						.output()
						.match(/Postgres \d+ is [^\n]*|Could not check database version[^\n]*/g) ?? [],
			);
			assert.deepEqual(warnings, []);
		});

		test('the trigger registers from the main; the webhook processors take 400 events, the workers run each once', async () => {
			await cluster.main.rest.activateWorkflow(ids.burst);
			const webhook = await registeredWebhook(burstAgent.id);
			assert.match(webhook, new RegExp(`^${cluster.webhookBase}/webhook/.+\\?token=[0-9a-f]{48}$`));

			const events = Array.from({ length: BURST }, (_, index) => callEnded(index));
			const burst = await postConcurrently(webhook, events, { concurrency: 25 });
			log(
				`${BURST} events accepted in ${Math.round(burst.ms)} ms (${Math.round(BURST / (burst.ms / 1000))} events/s)`,
			);
			assert.deepEqual(burst.failures, [], 'every event is acknowledged with 200');
			log(`requests per webhook processor: ${cluster.balancer.sent.join(', ')}`);
			assert.ok(
				cluster.balancer.sent.every((count) => count >= BURST / 2 - 1),
				'the load balancer shared the events between both webhook processors',
			);
			await collector.waitForCount(BURST, 300_000);

			const reported = collector.received.map((entry) => entry.body.call_id).sort();
			assert.deepEqual(
				reported,
				events.map((event) => event.call_id).sort(),
				'each event ran exactly once',
			);
			assert.equal(new Set(collector.received.map((entry) => entry.body.execution)).size, BURST);
			assert.equal(await executionCount(ids.burst), BURST);
			const byWorker = cluster.executionsByWorker();
			log(`executions per worker: ${byWorker.map((list) => list.length).join(', ')}`);
			assert.equal(byWorker.flat().length, BURST, 'every execution ran on a worker');
			assert.ok(
				byWorker.every((list) => list.length > 0),
				'both workers took executions',
			);
		});

		test('forged events are rejected at the webhook processor and start nothing', async () => {
			const webhook = await registeredWebhook(burstAgent.id);
			const withToken = (token) => {
				const url = new URL(webhook);
				if (token === undefined) url.searchParams.delete('token');
				else url.searchParams.set('token', token);
				return url.href;
			};
			const forged = [
				withToken(undefined),
				withToken('0'.repeat(48)),
				withToken(tokenOf(webhook).slice(1)),
			];
			const answers = await postConcurrently(
				(index) => forged[index],
				forged.map((_, index) => callEnded(5000 + index)),
			);
			assert.deepEqual(
				answers.answers.map((answer) => [answer.status, JSON.parse(answer.body)]),
				forged.map(() => [401, { error: 'Unauthorized', message: 'Missing or wrong token' }]),
			);
			const notAnEvent = await postConcurrently(webhook, [['not', 'an', 'event']]);
			assert.equal(notAnEvent.answers[0].status, 400);
			assert.equal(await executionCount(ids.burst), BURST, 'nothing started');
			assert.equal(collector.received.length, BURST);
		});

		test('300 calls ending within a minute through two webhook processors: the service delivers every call_ended', async () => {
			await cluster.main.rest.activateWorkflow(ids.ending);
			const webhook = await registeredWebhook(endingAgent.id);
			assert.ok(webhook.startsWith(`${cluster.webhookBase}/webhook/`), webhook);
			await api.control('DELETE', '/deliveries');
			const sentBefore = [...cluster.balancer.sent];
			const started = Date.now();

			// The service sends call_started as each call is placed and call_ended as it ends, at the pace
			// above, each attempt given up after 10 s and retried 3 times.
			const numbers = Array.from(
				{ length: CALLS_ENDING },
				(_, index) => `+1628555${String(index + 1).padStart(4, '0')}`,
			);
			const placing = await atPace(numbers, EVENTS_PER_SECOND, (to) =>
				api.call('POST', '/call', { from: endingAgent.phone_number, to }),
			);
			const calls = placing.map((result) => {
				if (result.status === 'rejected') throw result.reason;
				return result.value;
			});
			const ending = await atPace(calls, EVENTS_PER_SECOND, (call) =>
				api.control('POST', `/calls/${call.id}/complete`, { status: 'completed' }),
			);
			assert.deepEqual(
				ending.filter((result) => result.status === 'rejected'),
				[],
				'every call ended',
			);
			const callIds = calls.map((call) => call.id);
			const ended = await settledDeliveries(callIds, 'call_ended', DELIVERY_SETTLE_MS);
			const settledMs = Date.now() - started;
			// Executions still running finish and report within this bound.
			const runs = () => endingCollector.received.filter((entry) => entry.body.stage === 'run');
			const until = Date.now() + 120_000;
			while (runs().length < CALLS_ENDING && Date.now() < until) await sleep(500);
			await sleep(5000); // a late second run of an event would show up here

			const attempts = [...ended.values()].flat();
			const startedAttempts = (await api.deliveries()).filter(
				(entry) => entry.event_type === 'call_started' && callIds.includes(entry.call_id),
			);
			const outcome = (list) =>
				JSON.stringify(tally(list.map((attempt) => attempt.status ?? 'no answer in 10 s')));
			log(
				`${CALLS_ENDING} calls ending at once: deliveries settled after ${Math.round(settledMs / 1000)} s; ` +
					`call_ended attempts ${attempts.length} ${outcome(attempts)}, ` +
					`call_started attempts ${startedAttempts.length} ${outcome(startedAttempts)}; ` +
					`attempts per call_ended: ${JSON.stringify(tally([...ended.values()].map((list) => list.length)))}; ` +
					`requests per webhook processor: ${cluster.balancer.sent.map((count, index) => count - sentBefore[index]).join(', ')}; ` +
					`${runs().length} runs reported`,
			);
			endingRun = { callIds, ended };
			assert.deepEqual(
				callIds.filter((id) => !ended.get(id).some(delivered)),
				[],
				"every call_ended was answered 2xx within the service's attempts",
			);
			assert.ok(
				cluster.balancer.sent.every((count, index) => count > sentBefore[index]),
				'both webhook processors took events',
			);
		});

		test('300 calls ending within a minute: every call_ended starts exactly one successful execution', async () => {
			assert.ok(endingRun, 'the burst ran');
			const executions = await executionCount(ids.ending);
			const reported = tally(
				endingCollector.received
					.filter((entry) => entry.body.stage === 'run')
					.map((entry) => entry.body.call_id),
			);
			assert.deepEqual(
				{
					neverRan: endingRun.callIds.filter((id) => !reported[id]),
					ranMoreThanOnce: Object.entries(reported).filter(([, count]) => count > 1).length,
					failedExecutions: await cluster.main.rest.countExecutions({
						workflowId: ids.ending,
						status: ['error', 'crashed'],
					}),
					executions,
				},
				{ neverRan: [], ranMoreThanOnce: 0, failedExecutions: 0, executions: CALLS_ENDING },
			);
		});

		test("300 calls ending within a minute: n8n's Remove Duplicates on dedupe_key after the trigger does each call's work once", async () => {
			assert.ok(endingRun, 'the burst ran');
			await cluster.main.rest.deactivateWorkflow(ids.ending);
			const done = tally(
				endingCollector.received
					.filter((entry) => entry.body.stage === 'once')
					.map((entry) => entry.body.call_id),
			);
			assert.deepEqual(
				{
					notDone: endingRun.callIds.filter((id) => !done[id]),
					doneMoreThanOnce: Object.entries(done).filter(([, count]) => count > 1),
				},
				{ notDone: [], doneMoreThanOnce: [] },
			);
		});

		test('a Voice Agent workflow (Get Many with transcripts, Create, Set Context) runs on a worker', async () => {
			await cluster.main.rest.activateWorkflow(ids.operations);
			await api.clearRequestLog();
			const response = await fetch(cluster.webhookUrl('queue-follow-up'), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					to: '+14155550142',
					context: 'The customer asked for a Tuesday slot.',
				}),
			});
			const answer = await response.json();
			assert.equal(response.status, 200, JSON.stringify(answer));
			assert.equal(answer.to, '+14155550142');
			assert.equal(answer.status, 'in_progress');
			assert.equal(answer.context, 'The customer asked for a Tuesday slot.');

			const [execution] = await cluster.main.rest.waitForExecutions(ids.operations, { count: 1 });
			assert.equal(execution.status, 'success');
			const output = (name) =>
				execution.data.resultData.runData[name][0].data.main[0].map((item) => item.json);
			const recent = output('Recent calls');
			assert.equal(recent.length, 3);
			assert.ok(
				recent.every((call) => Array.isArray(call.transcript)),
				'with transcripts',
			);
			assert.equal(output('Call back')[0].context, 'Follow-up on 3 recent calls');
			assert.ok(
				cluster.executionsByWorker().flat().includes(String(execution.id)),
				'it ran on a worker',
			);
			const wire = (await api.requestLog()).map(
				(entry) => `${entry.method} ${entry.path} ${entry.status}`,
			);
			assert.ok(
				wire.includes('POST /v1/call 200') && wire.includes('POST /v1/call/context 200'),
				wire.join('\n'),
			);
		});

		test('the Call History Trigger outputs each ended call once: polled on the main, run on the workers', async () => {
			await cluster.main.rest.activateWorkflow(ids.history);
			const placed = [];
			for (const to of ['+14155550161', '+14155550162', '+14155550163']) {
				placed.push(await api.call('POST', '/call', { from: historyAgent.phone_number, to }));
			}
			for (const call of placed) {
				await api.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
			}
			await historyCollector.waitForCount(placed.length, 150_000);

			// The next poll finds nothing new.
			await api.clearRequestLog();
			const deadline = Date.now() + 90_000;
			while (!(await api.requestLog()).some((entry) => entry.path === '/v1/calls')) {
				assert.ok(Date.now() < deadline, 'the trigger polled again');
				await new Promise((resolve) => setTimeout(resolve, 500));
			}
			await new Promise((resolve) => setTimeout(resolve, 5000));
			await cluster.main.rest.deactivateWorkflow(ids.history);

			assert.deepEqual(
				historyCollector.received.map((entry) => entry.body.call_id).sort(),
				placed.map((call) => call.id).sort(),
				'each ended call once',
			);
			const executions = await cluster.main.rest.listExecutions({ workflowId: ids.history });
			assert.ok(executions.every((execution) => execution.status === 'success'));
			const onWorkers = cluster.executionsByWorker().flat();
			assert.ok(
				executions.every((execution) => onWorkers.includes(String(execution.id))),
				'they ran on the workers',
			);
		});

		test('renaming the trigger node registers it again, with the same URL and token', async () => {
			const before = await registeredWebhook(burstAgent.id);
			const workflow = await cluster.main.rest.getWorkflow(ids.burst);
			const renamed = (name) => (name === 'Call ended' ? 'Ended call' : name);
			await api.clearRequestLog();
			await cluster.main.rest.updateLiveWorkflow(ids.burst, {
				nodes: workflow.nodes.map((node) => ({ ...node, name: renamed(node.name) })),
				connections: connect('Ended call', 'Report'),
			});
			// n8n takes the old node down (the agent gets its previous webhook back), then sets the
			// renamed one up: the URL follows the node's webhook ID, the token the API key and the URL.
			const writes = (await api.requestLog()).filter((entry) => entry.method !== 'GET');
			assert.deepEqual(
				writes.map((entry) => `${entry.method} ${entry.path} ${entry.body.webhook}`),
				[`POST /v1/agent ${PREVIOUS_WEBHOOK}`, `POST /v1/agent ${before}`],
			);
			assert.equal(await registeredWebhook(burstAgent.id), before);

			const event = await postConcurrently(before, [callEnded(7000)]);
			assert.equal(event.answers[0].status, 200);
			await collector.waitForCount(BURST + 1, 60_000);
			assert.equal(collector.received.at(-1).body.call_id, callEnded(7000).call_id);
		});

		test('restarting the main keeps the registration: no new secret, events still accepted', async () => {
			const before = await registeredWebhook(burstAgent.id);
			await api.clearRequestLog();
			const restarted = await cluster.restartMain();
			log(`main restarted in ${restarted.startMs} ms`);
			// n8n 2.x keeps webhook registrations in its database; 1.x checks each trigger's (checkExists)
			// before it says the editor is accessible. Either way the workflow is live again here.
			if (restarted.rest.dialect.publishesAfterAnswering)
				await restarted.rest.waitForPublication(ids.burst);
			assert.equal(await registeredWebhook(burstAgent.id), before, 'the same URL and secret');
			const writes = (await api.requestLog()).filter((entry) => entry.method !== 'GET');
			assert.deepEqual(writes, [], 'nothing was sent to the agent');

			// A real call on the agent ends: the service delivers call_ended to the webhook processor.
			const call = await api.call('POST', '/call', {
				from: burstAgent.phone_number,
				to: '+14155550143',
			});
			await api.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
			await collector.waitForCount(BURST + 2, 60_000);
			assert.equal(collector.received.at(-1).body.call_id, call.id);
			const ended = (await api.deliveries()).filter(
				(entry) => entry.call_id === call.id && entry.event_type === 'call_ended',
			);
			assert.deepEqual(
				ended.map((entry) => entry.status),
				[200],
				'delivered once, accepted',
			);
		});

		test('unpublishing restores the webhook the agent had before', async () => {
			const registered = await registeredWebhook(burstAgent.id);
			await cluster.main.rest.deactivateWorkflow(ids.burst);
			await cluster.main.rest.deactivateWorkflow(ids.operations);
			assert.equal(await registeredWebhook(burstAgent.id), PREVIOUS_WEBHOOK);
			const late = await postConcurrently(registered, [callEnded(9000)]);
			assert.equal(late.answers[0].status, 404, 'the webhook processor no longer knows the URL');
			assert.equal(await executionCount(ids.burst), BURST + 2);
		});

		test('a worker killed while Call → Create places a list; running the workflow again phones nobody twice', async () => {
			await cluster.main.rest.activateWorkflow(ids.callList);
			await api.clearRequestLog();
			const leads = Array.from({ length: 8 }, (_, index) => ({ phone: `+1332555010${index}` }));
			const placedAlready = 3;
			// Plays the people called: each call ends a second after it starts, until `state.endUpTo`
			// calls have ended; later ones stay in progress.
			const state = { endUpTo: placedAlready, ended: new Set(), stop: false };
			const endCalls = (async () => {
				const until = Date.now() + 300_000;
				while (!state.stop && Date.now() < until) {
					const { calls } = await api.call('GET', `/calls?agent_id=${listAgent.id}&limit=100`);
					for (const call of calls) {
						const age = Date.now() - Date.parse(call.created_at);
						if (call.status !== 'in_progress' || age < 1000 || state.ended.size >= state.endUpTo)
							continue;
						state.ended.add(call.id);
						await api.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });
					}
					await sleep(250);
				}
			})();
			const postsPerNumber = async () =>
				tally(
					(await api.requestLog())
						.filter((entry) => entry.method === 'POST' && entry.path === '/v1/call')
						.map((entry) => entry.body.to),
				);
			try {
				const runList = () =>
					fetch(cluster.webhookUrl('queue-call-list'), {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ leads }),
					});
				assert.equal((await runList()).status, 200);
				// The kill lands while the fourth lead's call is in progress (three placed and ended).
				const until = Date.now() + 120_000;
				while (Object.keys(await postsPerNumber()).length < placedAlready + 1) {
					assert.ok(Date.now() < until, 'the list reached its fourth lead');
					await sleep(250);
				}
				const [first] = await cluster.main.rest.listExecutions({ workflowId: ids.callList });
				const running = cluster.workers.find((worker) =>
					worker.output().includes(`Worker started execution ${first.id}`),
				);
				assert.ok(running, `a worker runs execution ${first.id}`);
				await cluster.killWorker(running);
				log(
					`killed the worker running execution ${first.id} with ${placedAlready + 1} calls placed`,
				);

				// Run the workflow again, as the docs say; the people answer the new calls.
				state.endUpTo = Infinity;
				assert.equal((await runList()).status, 200);
				// The killed run's execution may stay "running" until n8n notices: wait for the new one.
				let again;
				const finishBy = Date.now() + 240_000;
				while (!again) {
					const list = await cluster.main.rest.listExecutions({ workflowId: ids.callList });
					const next = list.find(
						(execution) =>
							String(execution.id) !== String(first.id) &&
							!['new', 'running', 'waiting'].includes(execution.status),
					);
					if (next) again = await cluster.main.rest.getExecution(next.id);
					else {
						assert.ok(Date.now() < finishBy, `the new run finished: ${JSON.stringify(list)}`);
						await sleep(500);
					}
				}
				assert.equal(again.status, 'success');
				const output = again.data.resultData.runData['Call each lead'][0].data.main[0].map(
					(item) => item.json,
				);
				assert.deepEqual(
					output.map((call) => [call.to, call.skipped === true]),
					leads.map((lead, index) => [lead.phone, index <= placedAlready]),
					'the numbers the killed run phoned are skipped, the rest placed',
				);
				const crashed = await cluster.main.rest.listExecutions({ workflowId: ids.callList });
				log(
					`the killed run's execution: ${crashed.find((execution) => String(execution.id) === String(first.id))?.status}`,
				);
				assert.deepEqual(
					await postsPerNumber(),
					Object.fromEntries(leads.map((lead) => [lead.phone, 1])),
					'each number phoned once',
				);
			} finally {
				state.stop = true;
				await endCalls;
				await cluster.main.rest.deactivateWorkflow(ids.callList);
			}
		});
	},
);
