// End-to-end: the Voice Agent Trigger's token lifecycle and redeliveries in a real, pinned n8n (the
// default, or the one VOICE_AGENT_N8N_VERSION names), the packed package installed as users install it.
// Changing Token Rotation and publishing again makes the old token 401, also after n8n restarts; a
// When Last Node Finishes run that failed is run again on the service's redelivery, and a redelivery
// of an event whose run succeeded starts nothing; a delivery whose call details cannot be read runs at
// once without them (answered 200, no failed execution); the workflow export and its static data hold no
// token.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { importCredentials, importWorkflows, runN8n } from '../../scripts/lib/n8n-cli.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { harnessDir } from '../../scripts/lib/user-folder.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-safety-trigger-key';
const CREDENTIAL = { id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' };
/** An account of the same sandbox served as the live service runs: its events never come again. */
const LIVE_KEY = 'e2e-safety-trigger-live-key';
const LIVE_CREDENTIAL = { id: 'VoiceAgentLiveSb', name: 'Voice Agent (live sandbox)' };
const LIVE_CALLS = 20;
const TRIGGER_TYPE = 'n8n-nodes-voice-agent.voiceAgentTrigger';
const N8N_VERSION = selectRuntime().n8n;
const log = (line) => console.log(`[e2e] ${line}`);

let sandbox;
let api;
let liveApi;
let userFolder;
let setup;
let server;
let port;
/** A CRM the workflow writes to: its first request fails (500), the later ones succeed. */
let crm;
const crmRequests = [];
const ids = {};
const agents = {};

function triggerNode(agentId, webhookId, parameters, credential = CREDENTIAL) {
	return {
		name: 'Voice Agent Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId,
		parameters: { agent: { __rl: true, mode: 'id', value: String(agentId) }, ...parameters },
		credentials: { voiceAgentApi: credential },
	};
}

function linked(name, trigger, next) {
	return {
		name,
		nodes: [trigger, next],
		connections: { [trigger.name]: { main: [[{ node: next.name, type: 'main', index: 0 }]] } },
	};
}

/** The workflow whose token is rotated: every event of its agent, answered at once. */
function rotatingWorkflow(agentId, options) {
	return linked(
		'E2E: token rotation',
		triggerNode(agentId, '7a2e9c10-1111-4c11-9a01-00000000a0a1', {
			events: ['call_started', 'call_ended', 'tool_call'],
			responseMode: 'onReceived',
			options,
		}),
		{
			name: 'Noted',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [240, 0],
			parameters: {},
		},
	);
}

async function startServer() {
	server = await startN8nServer(userFolder, { port });
	port = server.port;
	log(`n8n ${N8N_VERSION} started in ${server.startMs} ms at ${server.url}`);
	await server.setupOwnerAndLogin();
}

async function webhookOf(agentId, client = api) {
	return (await client.call('GET', `/agent?id=${agentId}`)).webhook;
}

const tally = (values) => {
	const counts = {};
	for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
	return counts;
};

function tokenOf(webhook) {
	return new URL(webhook).searchParams.get('token');
}

/** Waits until the agent's webhook is not `previous` any more (a publish applies asynchronously). */
async function webhookChangedFrom(agentId, previous, timeoutMs = 30_000, client = api) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const webhook = await webhookOf(agentId, client);
		if (webhook && webhook !== previous) return webhook;
		if (Date.now() > deadline) throw new Error(`the agent's webhook stayed ${previous}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

let eventCount = 0;

/** POSTs a new event (never one sent before) with this token to the trigger's production URL. */
async function deliverWith(webhook, token) {
	const url = new URL(webhook);
	url.searchParams.set('token', token);
	const body = {
		event_type: 'call_started',
		call_id: `call_by_hand_${++eventCount}`,
		timestamp: new Date().toISOString(),
		data: {},
	};
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	await response.text();
	return response.status;
}

/** Every execution of the workflow, once none is still running (n8n's bare count leaves those out). */
const executionCount = (workflowId) => server.rest.settledExecutionCount(workflowId);

before(async () => {
	setup = await installedPackage();
	({ userFolder } = setup);

	const crmServer = createServer((request, response) => {
		crmRequests.push(request.url);
		const failing = crmRequests.length === 1;
		response.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
		response.end(JSON.stringify(failing ? { error: 'CRM is down' } : { logged: true }));
	});
	await new Promise((resolve) => crmServer.listen(0, '127.0.0.1', resolve));
	crm = { server: crmServer, url: `http://127.0.0.1:${crmServer.address().port}` };

	sandbox = await startEmptySandbox(API_KEY, {
		apiKeys: [API_KEY, LIVE_KEY],
		profiles: { [LIVE_KEY]: 'live' },
		callDurationMs: 3_600_000,
		webhookRetryDelayMs: 300,
	});
	api = sandboxClient(sandbox, API_KEY);
	liveApi = sandboxClient(sandbox, LIVE_KEY);
	agents.live = await liveApi.call('POST', '/agent', { name: 'E2E Live Desk' });
	agents.rotating = await api.call('POST', '/agent', {
		name: 'E2E Rotation Desk',
		area_code: '415',
	});
	agents.failing = await api.call('POST', '/agent', {
		name: 'E2E Follow-up Desk',
		area_code: '415',
	});
	agents.details = await api.call('POST', '/agent', {
		name: 'E2E Transcript Desk',
		area_code: '415',
	});
	await importCredentials(userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
		voiceAgentCredential(LIVE_CREDENTIAL, LIVE_KEY, sandbox.baseUrl),
	]);
	[ids.rotating, ids.failing, ids.reading, ids.details, ids.live] = await importWorkflows(
		userFolder,
		[
			rotatingWorkflow(agents.rotating.id, {}),
			// A workflow that writes each call to a CRM, answering with what the CRM said: the CRM fails once,
			// so the first run fails (n8n answers 500) and the service delivers the event again.
			linked(
				'E2E: CRM fails once',
				triggerNode(agents.failing.id, '7a2e9c10-2222-4c11-9a01-00000000b0b2', {
					events: ['call_started'],
					responseMode: 'lastNode',
					options: {},
				}),
				{
					name: 'Write to CRM',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [240, 0],
					parameters: { url: `=${crm.url}/calls?id={{ $json.call_id }}`, options: {} },
				},
			),
			// Agent → Get behind a Webhook node: its output is the answer, and stays in the execution history.
			linked(
				'E2E: read the agent',
				{
					name: 'Read',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: '7a2e9c10-3333-4c11-9a01-00000000c0c3',
					parameters: {
						httpMethod: 'POST',
						path: 'read-agent',
						responseMode: 'lastNode',
						options: {},
					},
				},
				{
					name: 'Agent',
					type: 'n8n-nodes-voice-agent.voiceAgent',
					typeVersion: 1,
					position: [240, 0],
					parameters: {
						resource: 'agent',
						operation: 'get',
						agent: { __rl: true, mode: 'id', value: agents.rotating.id },
					},
					credentials: { voiceAgentApi: CREDENTIAL },
				},
			),
			// Call Ended with Include Call Details: a delivery whose call cannot be read runs without it.
			linked(
				'E2E: call details',
				triggerNode(agents.details.id, '7a2e9c10-4444-4c11-9a01-00000000d0d4', {
					events: ['call_ended'],
					responseMode: 'onReceived',
					options: { includeCallDetails: true },
				}),
				{
					name: 'Noted',
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					position: [240, 0],
					parameters: {},
				},
			),
			// The live service's calls: each call_ended, with the call it carries.
			linked(
				'E2E: live calls',
				triggerNode(
					agents.live.id,
					'7a2e9c10-5555-4c11-9a01-00000000e0e5',
					{
						events: ['call_ended'],
						responseMode: 'onReceived',
						options: { includeCallDetails: true },
					},
					LIVE_CREDENTIAL,
				),
				{
					name: 'Noted',
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					position: [240, 0],
					parameters: {},
				},
			),
		],
	);
	await startServer();
});

after(async () => {
	await server?.stop();
	await sandbox?.close();
	await new Promise((resolve) => (crm ? crm.server.close(resolve) : resolve()));
	setup?.remove();
});

describe(`Voice Agent Trigger token and redeliveries in a running n8n ${N8N_VERSION}`, () => {
	test('Token Rotation: the old token is answered 401 after publishing again and after a restart; no export or node output holds a token', async () => {
		await server.rest.activateWorkflow(ids.rotating);
		const first = await webhookChangedFrom(agents.rotating.id, '');
		const firstToken = tokenOf(first);
		assert.match(firstToken, /^[0-9a-f]{48}$/);
		assert.equal(await deliverWith(first, firstToken), 200);

		const { nodes, connections } = rotatingWorkflow(agents.rotating.id, { tokenRotation: 1 });
		const saved = await server.rest.getWorkflow(ids.rotating);
		// The same node (its id and webhookId), with the new option.
		const updated = saved.nodes.map((node) =>
			node.type === TRIGGER_TYPE ? { ...node, parameters: nodes[0].parameters } : node,
		);
		await server.rest.updateLiveWorkflow(ids.rotating, { nodes: updated, connections });
		const second = await webhookChangedFrom(agents.rotating.id, first);
		const secondToken = tokenOf(second);
		log(`rotated: ${first.replace(firstToken, '…')} → new token`);
		assert.equal(second.replace(secondToken, ''), first.replace(firstToken, ''), 'the same URL');
		assert.notEqual(secondToken, firstToken);
		assert.equal(await deliverWith(second, firstToken), 401);
		assert.equal(await deliverWith(second, secondToken), 200);

		await server.stop();
		// The workflow as `n8n export:workflow` writes it while n8n is down: static data has the hash only.
		const file = path.join(harnessDir(userFolder), 'rotating-export.json');
		const exported = await runN8n(['export:workflow', `--id=${ids.rotating}`, `--output=${file}`], {
			userFolder,
		});
		assert.equal(exported.code, 0, exported.output.slice(-2000));
		const exportedText = readFileSync(file, 'utf8');
		rmSync(file);
		assert.match(exportedText, /"tokenHash":\s*"[0-9a-f]{64}"/);
		for (const token of [firstToken, secondToken]) assert.ok(!exportedText.includes(token));

		await startServer();
		if (server.rest.dialect.publishesAfterAnswering)
			await server.rest.waitForPublication(ids.rotating);
		assert.equal(await webhookOf(agents.rotating.id), second, 'the restart kept the new URL');
		assert.equal(await deliverWith(second, firstToken), 401);
		assert.equal(await deliverWith(second, secondToken), 200);

		const workflow = await server.rest.getWorkflow(ids.rotating);
		const stored = JSON.stringify(workflow);
		for (const token of [firstToken, secondToken]) assert.ok(!stored.includes(token));
		// Agent → Get shows the webhook without its token, in its output and in the execution history.
		await server.rest.activateWorkflow(ids.reading);
		const read = await fetch(server.webhookUrl('read-agent'), { method: 'POST' });
		const shown = await read.json();
		assert.equal(read.status, 200, JSON.stringify(shown));
		assert.equal(shown.webhook, second.replace(secondToken, 'REDACTED'));
		const [reading] = await server.rest.waitForExecutions(ids.reading, { count: 1 });
		const history = JSON.stringify(reading);
		assert.match(history, /token=REDACTED/);
		assert.ok(!history.includes(secondToken));
		await server.rest.deactivateWorkflow(ids.reading);

		// Three events were accepted, one per 200: none refused started anything.
		await server.rest.waitForExecutions(ids.rotating, { count: 3, timeoutMs: 30_000 });
		assert.equal(await executionCount(ids.rotating), 3);
		await server.rest.deactivateWorkflow(ids.rotating);
	});

	test('When Last Node Finishes: a run that failed is run again on the redelivery and the event is not lost; a redelivery after the run succeeded starts nothing', async () => {
		await server.rest.activateWorkflow(ids.failing);
		const webhook = await webhookChangedFrom(agents.failing.id, '');
		const call = await api.call('POST', '/call', {
			from: agents.failing.phone_number,
			to: '+14155550142',
			context: 'Follow-up',
		});
		// call_started goes out as the call is placed; the first answer is n8n's 500 for the failed run.
		const deadline = Date.now() + 30_000;
		let deliveries = [];
		while (Date.now() < deadline) {
			deliveries = (await api.deliveries()).filter((entry) => entry.call_id === call.id);
			if (deliveries.some((entry) => entry.status === 200)) break;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		await new Promise((resolve) => setTimeout(resolve, 1500));
		deliveries = (await api.deliveries()).filter((entry) => entry.call_id === call.id);
		log(`deliveries: ${deliveries.map((entry) => `${entry.attempt}:${entry.status}`).join(' ')}`);
		assert.deepEqual(
			deliveries.map((entry) => [entry.attempt, entry.status]),
			[
				[1, 500],
				[2, 200],
			],
		);
		// The second run wrote the call to the CRM, and its answer is what the service got.
		assert.deepEqual(JSON.parse(deliveries[1].response_body), { logged: true });
		assert.deepEqual(crmRequests, [`/calls?id=${call.id}`, `/calls?id=${call.id}`]);
		await server.rest.waitForExecutions(ids.failing, { count: 2, timeoutMs: 30_000 });
		assert.equal(await executionCount(ids.failing), 2);
		assert.equal(
			await server.rest.countExecutions({ workflowId: ids.failing, status: 'error' }),
			1,
		);

		// The same event once more, as a service does when the answer was lost: its run succeeded, so
		// it is answered 200 and starts nothing.
		const body = JSON.stringify({
			event_type: 'call_started',
			call_id: 'call_by_hand_redelivered',
			timestamp: '2026-11-23T09:00:00.000Z',
			data: {},
		});
		const post = async () => {
			const response = await fetch(webhook, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			return { status: response.status, body: await response.text() };
		};
		const once = await post();
		const again = await post();
		assert.deepEqual(once, { status: 200, body: JSON.stringify({ logged: true }) });
		assert.deepEqual(again, {
			status: 200,
			body: JSON.stringify({ received: true, duplicate: true }),
		});
		await new Promise((resolve) => setTimeout(resolve, 1000));
		assert.equal(await executionCount(ids.failing), 3);
		assert.equal(crmRequests.length, 3);
		await server.rest.deactivateWorkflow(ids.failing);
	});

	test('a delivery whose call details cannot be read is answered 200 and runs once, without the call, saying why; no failed execution', async () => {
		await server.rest.activateWorkflow(ids.details);
		await webhookChangedFrom(agents.details.id, '');
		const call = await api.call('POST', '/call', {
			from: agents.details.phone_number,
			to: '+14155550144',
			context: 'Transcript',
		});
		// Both attempts of the trigger's read fail.
		await api.control('POST', '/faults', {
			error_rate: 1,
			status: 503,
			match: 'GET /call',
			times: 2,
		});
		await api.control('POST', `/calls/${call.id}/complete`, { status: 'completed' });

		const deadline = Date.now() + 30_000;
		let deliveries = [];
		while (Date.now() < deadline) {
			deliveries = (await api.deliveries()).filter(
				(entry) => entry.call_id === call.id && entry.event_type === 'call_ended',
			);
			if (deliveries.some((entry) => entry.status !== null)) break;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		log(`deliveries: ${deliveries.map((entry) => `${entry.attempt}:${entry.status}`).join(' ')}`);
		assert.deepEqual(
			deliveries.map((entry) => [entry.attempt, entry.status]),
			[[1, 200]],
		);
		assert.deepEqual(JSON.parse(deliveries[0].response_body), { received: true });
		const [execution] = await server.rest.waitForExecutions(ids.details, { count: 1 });
		await new Promise((resolve) => setTimeout(resolve, 1000));
		assert.equal(await executionCount(ids.details), 1);
		assert.equal(
			await server.rest.countExecutions({ workflowId: ids.details, status: 'error' }),
			0,
		);
		const item = execution.data.resultData.runData['Voice Agent Trigger'][0].data.main[0][0].json;
		assert.equal(item.call, undefined);
		assert.match(item.call_details_skipped, /^Call details not read: /);
		await server.rest.deactivateWorkflow(ids.details);
	});

	test(`the live service's sender (no retry of any answer): ${LIVE_CALLS} calls one after another, each call_ended answered 200 and run once, with the call it carries`, async () => {
		await server.rest.activateWorkflow(ids.live);
		await webhookChangedFrom(agents.live.id, '', 30_000, liveApi);
		await liveApi.control('DELETE', '/deliveries');
		const calls = [];
		for (let index = 0; index < LIVE_CALLS; index++) {
			const call = await liveApi.call('POST', '/call', {
				from: agents.live.phone_number,
				to: `+1415555${String(2000 + index)}`,
			});
			calls.push(call);
			// It connects now (call_started) and ends 300 ms later (call_ended).
			await liveApi.control('POST', `/calls/${call.id}/connect`, { call_duration_ms: 300 });
			await server.rest.waitForExecutions(ids.live, { count: index + 1, timeoutMs: 30_000 });
		}
		const deliveries = await liveApi.deliveries();
		log(
			`live deliveries: ${JSON.stringify(tally(deliveries.map((entry) => `${entry.event_type} ${entry.status}`)))}`,
		);
		assert.deepEqual(tally(deliveries.map((entry) => `${entry.event_type} ${entry.status}`)), {
			[`call_started 200`]: LIVE_CALLS,
			[`call_ended 200`]: LIVE_CALLS,
		});
		assert.equal(await executionCount(ids.live), LIVE_CALLS);
		const executions = await server.rest.waitForExecutions(ids.live, { count: LIVE_CALLS });
		const items = executions.map(
			(execution) =>
				execution.data.resultData.runData['Voice Agent Trigger'][0].data.main[0][0].json,
		);
		assert.deepEqual(
			items.map((item) => item.call_id).sort(),
			calls.map((call) => String(call.id)).sort(),
			'each call_ended ran once',
		);
		for (const item of items) assert.equal(item.call.status, 'completed');
		assert.equal(await server.rest.countExecutions({ workflowId: ids.live, status: 'error' }), 0);
		await server.rest.deactivateWorkflow(ids.live);
	});
});
