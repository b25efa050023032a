// End-to-end: the packed package installed into a real, pinned n8n (the default, or the one
// VOICE_AGENT_N8N_VERSION names) the way users install community packages, run against the sandbox. Headless runs (`n8n execute`) prove every Voice Agent operation
// and the example workflows; a real `n8n start` proves the trigger's register / event / restore cycle.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT as root } from '../../scripts/lib/community-package.mjs';
import { executeWorkflow, importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { SANDBOX_API_KEY, startSeededSandbox } from '../../scripts/lib/demo-sandbox.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { waitFor } from '../../scripts/lib/processes.mjs';
import { nodeOutput } from '../../scripts/lib/run-data.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { requestSandbox } from '../../scripts/lib/sandbox-client.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { startEmptySandbox } from './support/sandbox-client.mjs';
import { manualTrigger } from './support/workflows.mjs';

const API_KEY = 'e2e-sandbox-key';
const CREDENTIAL = { id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' };
/** An account the sandbox serves as the live service answers (its live profile). */
const LIVE_API_KEY = 'e2e-live-key';
const LIVE_CREDENTIAL = { id: 'VoiceAgentLiveSb', name: 'Voice Agent (live service)' };
const VOICE_AGENT = 'n8n-nodes-voice-agent.voiceAgent';
const N8N_VERSION = selectRuntime().n8n;
const log = (line) => console.log(`[e2e] ${line}`);

let sandbox;
let userFolder;
let setup;

/** A request to the sandbox API (path relative to /v1) or, with `control`, to /_sandbox. */
const sandboxCall = (method, urlPath, body, options) =>
	requestSandbox(sandbox, API_KEY, method, urlPath, body, options);

const requestLog = () => sandboxCall('GET', '/requests', undefined, { control: true });
const clearRequestLog = () => sandboxCall('DELETE', '/requests', undefined, { control: true });

/** A transcript as Transcript Format "Text" writes it: a line per turn, "Agent: …" / "Customer: …". */
function transcriptLines(transcript) {
	return transcript
		.map((entry) => `${entry.speaker === 'agent' ? 'Agent' : 'Customer'}: ${entry.text}`)
		.join('\n');
}

function readExample(name) {
	return JSON.parse(readFileSync(path.join(root, 'examples', `${name}.json`), 'utf8'));
}

function voiceAgentNode(name, x, parameters, credential = CREDENTIAL) {
	return {
		name,
		type: VOICE_AGENT,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials: { voiceAgentApi: credential },
	};
}

/** A Set node that outputs the given fields (values may be expressions). */
function setNode(name, x, fields) {
	const assignments = Object.entries(fields).map(([field, value], index) => ({
		id: `d${String(index).padStart(7, '0')}-0000-4000-8000-000000000000`,
		name: field,
		type: 'string',
		value,
	}));
	return {
		name,
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position: [x, 0],
		parameters: { assignments: { assignments }, options: {} },
	};
}

/** A linear workflow: each node feeds the next. */
function chain(name, nodes) {
	const connections = {};
	for (let i = 0; i + 1 < nodes.length; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { name, nodes, connections };
}

async function runWorkflow(workflow) {
	const [id] = await importWorkflows(userFolder, [workflow]);
	const started = Date.now();
	const run = await executeWorkflow(userFolder, id);
	log(`${workflow.name}: n8n execute took ${Date.now() - started} ms`);
	assert.equal(
		run.data.resultData.error,
		undefined,
		`the run failed: ${run.data.resultData.error?.message}`,
	);
	return run;
}

before(async () => {
	setup = await installedPackage();
	({ userFolder } = setup);
	log(`n8n ${N8N_VERSION} runtime ready after ${setup.seconds} s`);
	log(`installed ${setup.installed.name}@${setup.installed.version} into ${userFolder}/.n8n/nodes`);

	sandbox = await startEmptySandbox(API_KEY, {
		apiKeys: [API_KEY, LIVE_API_KEY],
		profiles: { [LIVE_API_KEY]: 'live' },
	});
	await sandboxCall('POST', '/seed', { agents: 3, calls: 30 }, { control: true });
	// A trailing slash, as users paste it: the nodes must tolerate it.
	await importCredentials(userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, `${sandbox.baseUrl}/`),
		voiceAgentCredential(LIVE_CREDENTIAL, LIVE_API_KEY, sandbox.baseUrl),
	]);
});

after(async () => {
	await sandbox?.close();
	setup?.remove();
});

describe(`Voice Agent node in n8n ${N8N_VERSION} (n8n execute)`, { timeout: 600_000 }, () => {
	test('every operation, wired with expressions as users write them', async () => {
		await clearRequestLog();
		const workflow = chain('E2E: every operation', [
			manualTrigger(),
			voiceAgentNode('Create agent', 200, {
				resource: 'agent',
				operation: 'upsert',
				name: 'E2E Front Desk',
				areaCode: '415',
				additionalFields: {
					systemPrompt: 'You book appointments for Acme Dental.',
					voiceOptimization: 2,
					fillerWordsWhitelist: 'um, well',
					actions: {
						action: [
							{
								name: 'transfer',
								instructions: 'When asked for a human',
								forwardingNumber: '+14155550100',
							},
						],
					},
				},
			}),
			voiceAgentNode('Get agent', 400, {
				resource: 'agent',
				operation: 'get',
				agent: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			}),
			voiceAgentNode('Place call', 600, {
				resource: 'call',
				operation: 'create',
				from: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				to: '+14155550123',
				context: '=Patient {{ $json.name }} test: appointment on Monday',
				options: { userSpeaksFirst: true },
			}),
			voiceAgentNode('Set context', 800, {
				resource: 'call',
				operation: 'setContext',
				callId: '={{ $json.id }}',
				context: 'The appointment moved to Tuesday at 10:00',
			}),
			voiceAgentNode('Get call', 1000, {
				resource: 'call',
				operation: 'get',
				callId: '={{ $json.id }}',
			}),
			voiceAgentNode('Calls of the agent', 1200, {
				resource: 'call',
				operation: 'getMany',
				returnAll: false,
				limit: 5,
				agent: { __rl: true, mode: 'id', value: '={{ $json.agent_id }}' },
				filters: { clientNumber: '+14155550123' },
				options: { includeTranscripts: true },
			}),
			voiceAgentNode('Delete agent', 1400, {
				resource: 'agent',
				operation: 'delete',
				agent: { __rl: true, mode: 'id', value: "={{ $('Create agent').first().json.id }}" },
			}),
			voiceAgentNode('All agents', 1600, {
				resource: 'agent',
				operation: 'getMany',
				returnAll: true,
			}),
		]);
		const run = await runWorkflow(workflow);

		const [agent] = nodeOutput(run, 'Create agent');
		assert.equal(agent.name, 'E2E Front Desk');
		assert.match(agent.phone_number, /^\+1415\d{7}$/);
		assert.equal(agent.voice_optimization, 2);
		assert.deepEqual(agent.filler_words_whitelist, ['um', 'well']);
		assert.deepEqual(agent.actions, [
			{
				name: 'transfer',
				instructions: 'When asked for a human',
				forwarding_number: '+14155550100',
			},
		]);
		assert.equal(nodeOutput(run, 'Get agent')[0].id, agent.id);

		const [call] = nodeOutput(run, 'Place call');
		assert.equal(call.from, agent.phone_number);
		assert.equal(call.to, '+14155550123');
		assert.equal(call.status, 'in_progress');
		assert.equal(call.context, 'Patient E2E Front Desk test: appointment on Monday');
		assert.equal(
			nodeOutput(run, 'Set context')[0].context,
			'The appointment moved to Tuesday at 10:00',
		);
		assert.equal(nodeOutput(run, 'Get call')[0].id, call.id);
		const listed = nodeOutput(run, 'Calls of the agent');
		assert.deepEqual(
			listed.map((entry) => entry.id),
			[call.id],
		);
		assert.ok(Array.isArray(listed[0].transcript), 'Include Transcripts adds the full record');
		assert.deepEqual(nodeOutput(run, 'Delete agent'), [{ deleted: true, id: agent.id }]);
		const remaining = nodeOutput(run, 'All agents');
		assert.equal(remaining.length, 3, 'the three seeded agents remain');
		assert.ok(!remaining.some((entry) => entry.id === agent.id));

		// What went over the wire, in order.
		const wire = (await requestLog()).map(
			(entry) => `${entry.method} ${entry.path} ${entry.status}`,
		);
		assert.deepEqual(wire, [
			'GET /v1/agents 200', // Create or Update reads the agents once, to send an agent's other fields back
			'POST /v1/agent 200',
			'GET /v1/agent 200',
			'GET /v1/agent 200', // Place call resolves the agent's phone number
			'GET /v1/calls 200', // ... and notes the latest calls to that number before dialling
			'POST /v1/call 200',
			'GET /v1/call 200', // Set context reads the call first: its state, its id's JSON type
			'POST /v1/call/context 200',
			'GET /v1/call 200',
			'GET /v1/calls 200',
			'GET /v1/call 200',
			'DELETE /v1/agent 200',
			'GET /v1/agents 200',
		]);
		const posted = (await requestLog()).find(
			(entry) => entry.method === 'POST' && entry.path === '/v1/agent',
		);
		assert.deepEqual(Object.keys(posted.body).sort(), [
			'actions',
			'area_code',
			'filler_words_whitelist',
			'name',
			'system_prompt',
			'voice_optimization',
		]);
	});

	test('example: create or update agents from a CRM list', async () => {
		const run = await runWorkflow(readExample('upsert-agents-from-crm'));
		const agents = nodeOutput(run, 'Create or update agent');
		assert.deepEqual(
			agents.map((agent) => agent.name),
			['Renewal Reminder', 'Delivery Follow-up'],
		);
		assert.match(agents[0].phone_number, /^\+1415/);
		assert.match(agents[1].phone_number, /^\+1212/);
		const stored = await sandboxCall('GET', `/agent?id=${agents[0].id}`);
		assert.equal(
			stored.system_prompt,
			'You remind customers that their plan renews next week and answer questions about it.',
		);

		// Run again: the same names update the same agents instead of creating new ones.
		const again = nodeOutput(
			await runWorkflow(readExample('upsert-agents-from-crm')),
			'Create or update agent',
		);
		assert.deepEqual(
			again.map((agent) => agent.id),
			agents.map((agent) => agent.id),
		);
	});

	// The export example starts with the Call History Trigger, which `n8n execute` passes through without
	// polling: callHistory.e2e.test.mjs runs it published, the browser suite from the editor's button. Its
	// branch for a run from the editor is this Get Many (then only the calls that ended).
	test('an export on demand: Get Many with Include Transcripts, Transcript Format Text', async () => {
		const { calls } = await sandboxCall('GET', '/calls?limit=100');
		const run = await runWorkflow(
			chain('E2E: export on demand', [
				manualTrigger(),
				voiceAgentNode('Get calls with transcripts', 200, {
					resource: 'call',
					operation: 'getMany',
					returnAll: true,
					options: { includeTranscripts: true, transcriptFormat: 'text' },
				}),
			]),
		);
		const exported = nodeOutput(run, 'Get calls with transcripts');
		assert.deepEqual(
			exported.map((call) => call.id),
			calls.map((call) => call.id),
			'every call, newest first',
		);
		const completed = exported.find((call) => call.status === 'completed');
		const full = await sandboxCall('GET', `/call?id=${completed.id}`);
		assert.equal(completed.transcript, undefined);
		assert.equal(completed.transcript_text, transcriptLines(full.transcript));
	});

	test('the live service: Return All over 250 calls placed 30 a second outputs every call once', async () => {
		await sandboxCall(
			'POST',
			'/seed',
			{ calls: 250, calls_per_second: 30, api_key: LIVE_API_KEY },
			{ control: true },
		);
		// The live service has no maximum page size: one page holds them all, in its order.
		const { calls } = await requestSandbox(sandbox, LIVE_API_KEY, 'GET', '/calls?limit=1000');
		assert.equal(calls.length, 250);
		const run = await runWorkflow(
			chain('E2E: every call of the live service', [
				manualTrigger(),
				voiceAgentNode(
					'All calls',
					200,
					{ resource: 'call', operation: 'getMany', returnAll: true },
					LIVE_CREDENTIAL,
				),
			]),
		);
		const output = nodeOutput(run, 'All calls');
		assert.deepEqual(
			output.map((call) => call.id),
			calls.map((call) => String(call.id)),
			'every call once, newest first, its id as text',
		);
		assert.ok(output.every((call) => ['completed', 'not_connected'].includes(call.status)));
	});

	test("example: push context into a live call, as shipped, against the demo's sandbox", async () => {
		// The sandbox as `npm run demo` seeds it; the example's credential points there for this test.
		const { sandbox: demoSandbox } = await startSeededSandbox({ port: 0 });
		const pointCredentialAt = (target, apiKey) =>
			importCredentials(userFolder, [voiceAgentCredential(CREDENTIAL, apiKey, target.baseUrl)]);
		try {
			await pointCredentialAt(demoSandbox, SANDBOX_API_KEY);
			const example = readExample('push-context-into-live-call');
			const sample = example.nodes.find((node) => node.name === 'Sample update');
			const [phone, message] = sample.parameters.assignments.assignments.map(
				(entry) => entry.value,
			);

			// `n8n execute` starts at an Execute Workflow Trigger when a workflow has one: without it, the
			// run starts at "Try it", as the editor's button for that trigger does. The rest is as shipped.
			const subWorkflowEntry = example.nodes.find((node) =>
				node.type.endsWith('.executeWorkflowTrigger'),
			);
			example.nodes = example.nodes.filter((node) => node !== subWorkflowEntry);
			delete example.connections[subWorkflowEntry.name];
			const run = await runWorkflow(example);

			const [updated] = nodeOutput(run, 'Set call context');
			assert.equal(updated.to, phone);
			assert.equal(updated.status, 'in_progress');
			assert.equal(updated.context, message);
			assert.equal(updated.live_call_search.client_number, phone);
			const stored = await fetch(`${demoSandbox.baseUrl}/call?id=${updated.id}`, {
				headers: { authorization: `Bearer ${SANDBOX_API_KEY}` },
			}).then((response) => response.json());
			assert.equal(stored.context, message);
		} finally {
			await pointCredentialAt({ baseUrl: `${sandbox.baseUrl}/` }, API_KEY);
			await demoSandbox.close();
		}
	});

	test('example: call a lead, wait for the call to end, and log its transcript', async () => {
		await clearRequestLog();
		// The sandbox's calls last 10 minutes here: end this one once the node has placed it.
		const endPlacedCall = (async () => {
			for (let tries = 0; tries < 600; tries++) {
				const placed = (await requestLog()).find(
					(entry) => entry.method === 'POST' && entry.path === '/v1/call' && entry.status === 200,
				);
				if (placed) {
					const [call] = (await sandboxCall('GET', '/calls?limit=1')).calls;
					return await sandboxCall('POST', `/calls/${call.id}/complete`, {}, { control: true });
				}
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
			throw new Error('the example placed no call within a minute');
		})();

		const [run, ended] = await Promise.all([
			runWorkflow(readExample('call-lead-and-log-outcome')),
			endPlacedCall,
		]);

		const [call] = nodeOutput(run, 'Call and wait for the outcome');
		assert.equal(call.id, ended.id);
		assert.equal(call.ended, true);
		assert.equal(call.status, 'completed');
		assert.equal(call.to, '+14155550142');
		assert.deepEqual(call.transcript, ended.transcript);
		const [row] = nodeOutput(run, 'Outcome for the CRM');
		assert.equal(row.lead, 'Dana Whitfield');
		assert.equal(row.ended, true);
		assert.equal(row.outcome, 'ended');
		assert.match(row.transcript, /Dana Whitfield/);
		const checks = (await requestLog()).filter(
			(entry) => entry.method === 'GET' && entry.path === '/v1/call',
		);
		assert.ok(checks.length >= 1 && checks.length <= 10, `${checks.length} checks of the call`);
	});
});

describe(`In a running n8n ${N8N_VERSION} (n8n start)`, { timeout: 600_000 }, () => {
	let server;
	let crmAgent;
	let toolAgent;
	const previousWebhook = 'https://crm.example.com/hooks/voice-agent?key=abc123';
	const ids = {};

	before(async () => {
		const { agents } = await sandboxCall('GET', '/agents?limit=100');
		crmAgent = agents.find((agent) => agent.name === 'Renewal Reminder') ?? agents[0];
		await sandboxCall('POST', '/agent', { name: crmAgent.name, webhook: previousWebhook });
		toolAgent = await sandboxCall('POST', '/agent', {
			name: 'E2E Order Desk',
			area_code: '646',
			tools: [
				{
					type: 'function',
					function: { name: 'lookup_order', description: 'Find an order', parameters: {} },
				},
			],
		});

		const logWorkflow = readExample('log-transcript-when-call-ends');
		const logTrigger = logWorkflow.nodes.find((node) => node.name === 'When a call ends');
		logTrigger.parameters.agent = { __rl: true, mode: 'id', value: crmAgent.id };
		logTrigger.parameters.options.replaceExistingWebhook = true;
		const toolWorkflow = {
			name: 'E2E: answer tool calls',
			nodes: [
				{
					name: 'Tool call',
					type: 'n8n-nodes-voice-agent.voiceAgentTrigger',
					typeVersion: 1,
					position: [0, 0],
					webhookId: '6f1d8c1e-5005-4c11-9a01-00000000beef',
					parameters: {
						agent: { __rl: true, mode: 'id', value: toolAgent.id },
						events: ['tool_call'],
						responseMode: 'lastNode',
						options: {},
					},
					credentials: { voiceAgentApi: CREDENTIAL },
				},
				setNode('Answer', 240, {
					result: '=Order {{ $json.tool_arguments.order_id }} ships tomorrow',
				}),
			],
			connections: { 'Tool call': { main: [[{ node: 'Answer', type: 'main', index: 0 }]] } },
		};
		[ids.log, ids.tool, ids.push] = await importWorkflows(userFolder, [
			logWorkflow,
			toolWorkflow,
			readExample('push-context-into-live-call'),
		]);
		// Another workflow (here: a billing system's webhook) hands a live call new context.
		[ids.billing] = await importWorkflows(userFolder, [
			chain('E2E: billing system pushes context', [
				{
					name: 'Payment received',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: '6f1d8c1e-6006-4c11-9a01-0000000b111e',
					parameters: {
						httpMethod: 'POST',
						path: 'billing-paid',
						responseMode: 'lastNode',
						options: {},
					},
				},
				setNode('Customer and context', 200, {
					clientNumber: '={{ $json.body.phone }}',
					context: '={{ $json.body.context }}',
				}),
				{
					name: 'Push context',
					type: 'n8n-nodes-base.executeWorkflow',
					typeVersion: 1.1,
					position: [400, 0],
					parameters: {
						source: 'database',
						workflowId: { __rl: true, mode: 'id', value: ids.push },
						options: {},
					},
				},
			]),
		]);

		server = await startN8nServer(userFolder);
		log(`n8n started in ${server.startMs} ms at ${server.url}`);
		await server.setupOwnerAndLogin();
	});

	after(async () => {
		await server?.stop();
	});

	const waitForExecutions = (workflowId, count) =>
		server.rest.waitForExecutions(workflowId, { count, timeoutMs: 30_000 });

	function outputOf(execution, nodeName) {
		return execution.data.resultData.runData[nodeName][0].data.main[0].map((item) => item.json);
	}

	test('credential: "Test connection" tells a working key, a wrong key and a wrong Base URL apart', async () => {
		const testConnection = (data) =>
			server.rest.request('POST', '/rest/credentials/test', {
				credentials: { id: CREDENTIAL.id, name: CREDENTIAL.name, type: 'voiceAgentApi', data },
			});
		assert.deepEqual(await testConnection({ apiKey: API_KEY, baseUrl: `${sandbox.baseUrl}/` }), {
			status: 'OK',
			message: 'Connection successful: the Voice Agent API accepted the API key',
		});
		const wrongKey = await testConnection({ apiKey: 'not-the-key', baseUrl: sandbox.baseUrl });
		assert.equal(wrongKey.status, 'Error');
		assert.match(wrongKey.message, /rejected the API key \(401 Unauthorized\)/);
		assert.ok(!wrongKey.message.includes('not-the-key'));
		// n8n itself answers GET /agents with a page of its editor.
		const wrongUrl = await testConnection({ apiKey: API_KEY, baseUrl: server.url });
		assert.equal(wrongUrl.status, 'Error');
		assert.match(
			wrongUrl.message,
			/does not answer like the Voice Agent API \(GET \/agents answered .+ with an HTML page\)/,
		);
	});

	test('example: push context into the live call of a phone number, from another workflow', async () => {
		await server.rest.enableSubWorkflow(ids.push);
		await server.rest.activateWorkflow(ids.billing);
		const live = await sandboxCall('POST', '/call', {
			from: crmAgent.phone_number,
			to: '+14155550177',
			context: 'Invoice #1042 is open',
		});
		// The billing system knows the customer's phone number, not the call.
		const response = await fetch(server.webhookUrl('billing-paid'), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				phone: '+14155550177',
				context: 'The customer just paid invoice #1042.',
			}),
		});
		const updated = await response.json();
		assert.equal(response.status, 200, JSON.stringify(updated));
		assert.equal(updated.id, live.id);
		assert.deepEqual(updated.live_call_search, {
			client_number: '+14155550177',
			agent_id: null,
			live_calls: 1,
			chosen: 'newest',
			other_live_call_ids: [],
		});
		assert.equal(updated.status, 'in_progress');
		assert.equal(updated.context, 'The customer just paid invoice #1042.');
		const ended = await sandboxCall(
			'POST',
			`/calls/${live.id}/complete`,
			{ status: 'completed' },
			{ control: true },
		);
		assert.match(JSON.stringify(ended.transcript), /The customer just paid invoice #1042/);
		await server.rest.deactivateWorkflow(ids.billing);
		await server.rest.disableSubWorkflow(ids.push);
	});

	test('trigger: registers on activation, runs on events, answers tool calls, restores on deactivation', async () => {
		await server.rest.activateWorkflow(ids.log);
		await server.rest.activateWorkflow(ids.tool);

		const registered = await sandboxCall('GET', `/agent?id=${crmAgent.id}`);
		assert.match(registered.webhook, new RegExp(`^${server.url}/webhook/.+\\?token=[0-9a-f]{48}$`));
		assert.ok(!registered.webhook.includes(API_KEY));
		assert.equal(
			registered.system_prompt,
			crmAgent.system_prompt,
			'registration changes nothing but the webhook',
		);
		const toolRegistered = await sandboxCall('GET', `/agent?id=${toolAgent.id}`);
		assert.match(toolRegistered.webhook, new RegExp(`^${server.url}/webhook/.+\\?token=`));

		// A call on the CRM agent ends: its transcript reaches the workflow.
		const call = await sandboxCall('POST', '/call', {
			from: crmAgent.phone_number,
			to: '+14155550188',
			context: 'Renewal on December 1',
		});
		// As on a real call, it ends after its call_started was delivered: both are sent as they happen, and the
		// log lists each delivery once answered (CI once saw call_ended answered first).
		const deliveriesOf = async (callId) =>
			(await sandboxCall('GET', '/deliveries', undefined, { control: true })).filter(
				(entry) => entry.call_id === callId,
			);
		await waitFor(async () => ((await deliveriesOf(call.id)).length > 0 ? true : undefined), {
			timeoutMs: 30_000,
			onTimeout: () => new Error(`call_started of ${call.id} was never delivered`),
		});
		await sandboxCall(
			'POST',
			`/calls/${call.id}/complete`,
			{ status: 'completed' },
			{ control: true },
		);
		const [ended] = await waitForExecutions(ids.log, 1);
		const [row] = outputOf(ended, 'Transcript for the CRM');
		assert.equal(row.call_id, call.id);
		assert.equal(row.customer_number, '+14155550188');
		assert.equal(row.status, 'completed');
		assert.match(row.transcript, /Renewal on December 1/);
		// "Respond: Immediately" acknowledges each event with the node's own small JSON.
		const acknowledgements = (await deliveriesOf(call.id)).map((entry) => [
			entry.event_type,
			entry.status,
			JSON.parse(entry.response_body),
		]);
		assert.deepEqual(acknowledgements, [
			['call_started', 200, { received: true, ignored: true }],
			['call_ended', 200, { received: true }],
		]);

		// A tool call on the other agent: the workflow's last node is the answer the service gets.
		const toolCall = await sandboxCall('POST', '/call', {
			from: toolAgent.phone_number,
			to: '+14155550199',
		});
		const delivery = await sandboxCall(
			'POST',
			`/calls/${toolCall.id}/events`,
			{ event_type: 'tool_call', data: { name: 'lookup_order', arguments: { order_id: '1042' } } },
			{ control: true },
		);
		const deliveries = await sandboxCall('GET', '/deliveries', undefined, { control: true });
		const answered = deliveries.find(
			(entry) => entry.call_id === toolCall.id && entry.event_type === 'tool_call',
		);
		assert.equal(
			delivery.status,
			200,
			`n8n answered ${answered?.response_body}\n${server.output().slice(-3000)}`,
		);
		assert.deepEqual(JSON.parse(answered.response_body), { result: 'Order 1042 ships tomorrow' });
		const [toolExecution] = await waitForExecutions(ids.tool, 1);
		const [toolItem] = outputOf(toolExecution, 'Tool call');
		assert.equal(toolItem.tool_name, 'lookup_order');
		assert.deepEqual(toolItem.tool_arguments, { order_id: '1042' });
		// The call_started events of both calls were acknowledged without starting anything.
		assert.equal((await server.rest.listExecutions({ workflowId: ids.tool })).length, 1);
		assert.equal((await server.rest.listExecutions({ workflowId: ids.log })).length, 1);

		await server.rest.deactivateWorkflow(ids.log);
		await server.rest.deactivateWorkflow(ids.tool);
		assert.equal((await sandboxCall('GET', `/agent?id=${crmAgent.id}`)).webhook, previousWebhook);
		assert.equal((await sandboxCall('GET', `/agent?id=${toolAgent.id}`)).webhook, '');
	});
});
