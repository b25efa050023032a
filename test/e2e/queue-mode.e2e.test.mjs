// End-to-end in n8n's queue mode, as teams run it at scale: Redis and PostgreSQL, a main
// (`n8n start`), two workers (`n8n worker`) and a webhook processor (`n8n webhook`), each with the
// packed package installed the way users install it. The trigger registers from the main, events
// arrive at the webhook processor and run on the workers; a Voice Agent workflow runs on a worker;
// the Call History Trigger polls on the main and its runs go to the workers; renaming the trigger,
// a restart of the main and unpublishing keep or restore the agent's webhook as they should.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { packPackage } from '../../scripts/lib/community-package.mjs';
import { postConcurrently, startCollector } from '../../scripts/lib/event-load.mjs';
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
const BURST = 1000;
const PREVIOUS_WEBHOOK = 'https://crm.example.com/hooks/voice-agent?key=abc123';
const log = (line) => console.log(`[e2e queue] ${line}`);

let sandbox;
let api;
let pack;
let cluster;
let collector;
let historyCollector;
let burstAgent;
let historyAgent;
const ids = {};

const credentials = { voiceAgentApi: CREDENTIAL };
const connect = (from, to) => ({ [from]: { main: [[{ node: to, type: 'main', index: 0 }]] } });

/** An HTTP Request node that POSTs the item's call ID and the execution's ID to the collector. */
function reportNode(collectorUrl, callIdExpression) {
	return {
		name: 'Report',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [240, 0],
		parameters: {
			method: 'POST',
			url: collectorUrl,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ call_id: ${callIdExpression}, execution: $execution.id }) }}`,
			options: {},
		},
	};
}

/** Voice Agent Trigger on an agent's ended calls → report the call id and execution to the collector. */
function burstWorkflow(agentId, collectorUrl) {
	return {
		name: 'E2E queue: every ended call once',
		nodes: [
			{
				name: 'Call ended',
				type: TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				webhookId: '7a2e9d2f-1001-4c11-9a01-00000000a001',
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

const executionCount = (workflowId) => cluster.main.rest.countExecutions({ workflowId });

before(async () => {
	const started = Date.now();
	const runtime = await ensureRuntime({ log: (line) => console.log(`[n8n-runtime] ${line}`) });
	pack = await packPackage();
	sandbox = await startEmptySandbox(API_KEY);
	api = sandboxClient(sandbox, API_KEY);
	await api.control('POST', '/seed', { agents: 2, calls: 12 });
	collector = await startCollector();
	historyCollector = await startCollector();
	cluster = await startQueueCluster({ tarball: pack.tarball, runtime, log });
	log(
		`queue mode up in ${Math.round((Date.now() - started) / 1000)} s: main ${cluster.main.url}, webhook processor ${cluster.webhookBase}, ${cluster.workers.length} workers`,
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
	[ids.burst, ids.operations, ids.history] = await importWorkflows(
		cluster.main.userFolder,
		[
			burstWorkflow(burstAgent.id, collector.url),
			voiceAgentWorkflow(agents[1].id),
			historyWorkflow(historyAgent.id, historyCollector.url),
		],
		options,
	);
});

after(async () => {
	await cluster?.stop();
	await collector?.close();
	await historyCollector?.close();
	await sandbox?.close();
	pack?.remove();
});

describe(
	'Queue mode: main, two workers and a webhook processor on Redis and PostgreSQL',
	{ timeout: 900_000 },
	() => {
		test('the trigger registers from the main; the webhook processor takes 1,000 events, the workers run each once', async () => {
			await cluster.main.rest.activateWorkflow(ids.burst);
			const webhook = await registeredWebhook(burstAgent.id);
			assert.match(webhook, new RegExp(`^${cluster.webhookBase}/webhook/.+\\?token=[0-9a-f]{48}$`));

			const events = Array.from({ length: BURST }, (_, index) => callEnded(index));
			const burst = await postConcurrently(webhook, events, { concurrency: 25 });
			log(
				`${BURST} events accepted in ${Math.round(burst.ms)} ms (${Math.round(BURST / (burst.ms / 1000))} events/s)`,
			);
			assert.deepEqual(burst.failures, [], 'every event is acknowledged with 200');
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
	},
);
