// End-to-end: Call → Create's guards hold across the executions one n8n process runs at once. The packed
// package in a real, pinned n8n (the default, or the one VOICE_AGENT_N8N_VERSION names), one `n8n start`,
// against the sandbox, whose request log counts every POST /call.
// - n8n's MCP Server Trigger (Streamable HTTP, published) with Call → Create as its tool, driven by a
//   minimal MCP client (scripts/lib/mcp-client.mjs): every `tools/call` is its own run of the tool, so
//   only guards shared by the process hold across them. What `tools/list` tells the client; parallel
//   calls to one number while POST /call takes 800 ms: one dial; a loop of calls to allowed numbers stops
//   at the hourly budget with a refusal the client sees.
// - Published Webhook → Call → Create workflows (the skip window at 0 with one call at once, and at its
//   default with five) whose 20 leads each arrive twice, at the same moment and 300 ms apart (a CRM's
//   retry), half of them UK numbers written "+44 (0)20 …" once and "+44 20 …" once: each person phoned
//   once, the second delivery output as skipped naming the first one's call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { connectMcp, toolResultText } from '../../scripts/lib/mcp-client.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-executions-key';
const CREDENTIAL = { id: 'VoiceAgentAtOnce', name: 'Voice Agent (sandbox)' };
/** An account the sandbox serves as the live service answers: numeric IDs, no status, calls that ring first. */
const LIVE_API_KEY = 'e2e-executions-live-key';
const LIVE_CREDENTIAL = { id: 'VoiceAgentAtOnceLive', name: 'Voice Agent (live sandbox)' };
const N8N_VERSION = selectRuntime().n8n;
const log = (line) => console.log(`[e2e] ${line}`);

/** The Voice Agent node version these tests run: the one whose guards are shared by the process. */
const NODE_VERSION = 1.4;
const MCP_PATH = 'voice-agent-tools';
/** The tool's name as n8n gives it to MCP clients (its node's name, spaces made underscores). */
const PLACE_CALL_TOOL = 'Place_call';
const READ_CALLS_TOOL = 'Read_calls';
const HOURLY_BUDGET = 3;
/** POST /call takes this long at the service, so parallel uses of one number overlap. */
const SLOW_POST_CALL = { match: 'POST /call', latency_ms: 800 };
/**
 * Node version 1.4 places one call at a time per node and process by default: two executions of the node
 * then take turns, and the second finds the first one's call in the call list. With 5 at once they
 * overlap, and only the claims shared by the process keep a number from being dialled twice.
 */
const CALLS_AT_ONCE = { callsAtOnce: 5 };

let sandbox;
let api;
let liveApi;
let setup;
let server;
const workflowIds = {};

/** How many times each person was dialled (POST /call answered 2xx), from the sandbox's request log. */
async function dialled(client = api) {
	const counts = {};
	for (const request of await client.requestLog()) {
		if (request.method !== 'POST' || request.path !== '/v1/call') continue;
		if (!(request.status >= 200 && request.status < 300)) continue;
		const person = personOf(request.body.to);
		counts[person] = (counts[person] ?? 0) + 1;
	}
	return counts;
}

function voiceAgentTool(name, position, parameters, credential = CREDENTIAL) {
	return {
		name,
		type: 'n8n-nodes-voice-agent.voiceAgentTool',
		typeVersion: NODE_VERSION,
		position,
		parameters: { descriptionType: 'auto', ...parameters },
		credentials: { voiceAgentApi: credential },
	};
}

/**
 * An MCP Server Trigger (Streamable HTTP, no authentication) at `path` with two Voice Agent tools: Call →
 * Create from `agent` to the number the client gives, only to +1650555 numbers, and Call → Get Many.
 */
function mcpWorkflow(name, path, webhookId, agent, options, credential = CREDENTIAL) {
	const trigger = {
		name: 'MCP Server Trigger',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2,
		position: [0, 0],
		webhookId,
		parameters: { path },
	};
	const placeCall = voiceAgentTool(
		'Place call',
		[-100, 200],
		{
			resource: 'call',
			operation: 'create',
			from: { __rl: true, mode: 'name', value: agent },
			to: "={{ $fromAI('To', 'The number to call, in E.164', 'string') }}",
			options: { allowedDestinations: '+1650555', ...options },
		},
		credential,
	);
	// Saved as the editor saves a tool added today: the node has its own Description (no Description
	// Type), left at its default.
	const readCalls = voiceAgentTool(
		'Read calls',
		[100, 200],
		{ descriptionType: undefined, resource: 'call', operation: 'getMany', limit: 5 },
		credential,
	);
	return {
		name,
		nodes: [trigger, placeCall, readCalls],
		connections: {
			'Place call': { ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] },
			'Read calls': { ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] },
		},
	};
}

/**
 * A Webhook that answers at once, then Call → Create to the lead's `phone`, from `agent`, to US and UK
 * numbers, with `parameters` (the skip window) and `options` (Calls at Once).
 */
function leadWebhookWorkflow({ name, path, webhookId, agent, parameters, options }) {
	const webhook = {
		name: 'New lead',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId,
		parameters: { httpMethod: 'POST', path, options: {} },
	};
	const call = {
		name: 'Call',
		type: 'n8n-nodes-voice-agent.voiceAgent',
		typeVersion: NODE_VERSION,
		position: [200, 0],
		parameters: {
			resource: 'call',
			operation: 'create',
			from: { __rl: true, mode: 'name', value: agent },
			to: '={{ $json.body.phone }}',
			...parameters,
			options: { allowedDestinations: '+1650555, +44207946', ...options },
		},
		credentials: { voiceAgentApi: CREDENTIAL },
	};
	return {
		name,
		nodes: [webhook, call],
		connections: { 'New lead': { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
	};
}

/**
 * The lead workflows: the skip window at 0 (a number may be called again once its call has ended) with
 * Calls at Once at its default of 1, and at its default of 15 minutes with 5 calls at once; each twice,
 * for the two deliveries of a lead at the same moment and 300 ms apart (a workflow per round keeps its
 * executions within one page of n8n's list).
 */
const LEAD_WORKFLOWS = [
	{
		key: 'window0',
		title: 'skip window 0, Calls at Once 1',
		agent: 'Lead Desk',
		parameters: { skipCalledWithinMinutes: 0 },
		options: {},
	},
	{
		key: 'window15',
		title: 'the default skip window (15), Calls at Once 5',
		agent: 'Second Lead Desk',
		parameters: {},
		options: { ...CALLS_AT_ONCE },
	},
].flatMap((settings, index) =>
	[
		[0, 'at the same moment'],
		[300, '300 ms apart'],
	].map(([gapMs, when], round) => ({
		...settings,
		key: `${settings.key}-${gapMs}`,
		name: `E2E: call each new lead, ${settings.title}, ${when}`,
		path: `new-lead-${settings.key}-${gapMs}`,
		webhookId: `6d1f0c2e-0000-4000-8000-00000000ead${index * 2 + round}`,
		gapMs,
		when,
		round: index * 2 + round,
	})),
);

/**
 * 20 people for one round: 10 US numbers, and 10 UK numbers that the two deliveries of a lead write as a
 * CRM may, "+44 (0)20 7946 …" and "+44 20 7946 …" (one person: the 0 is the UK's trunk prefix, dropped
 * after +44). `[first, second]` spellings per person, the order alternating.
 */
function roundLeads(round) {
	return Array.from({ length: 20 }, (_, index) => {
		const digits = String(1000 + round * 20 + index);
		if (index < 10) return { person: `+1650555${digits}`, spellings: [`+1650555${digits}`] };
		const plain = `+44 20 7946 ${digits}`;
		const trunk = `+44 (0)20 7946 ${digits}`;
		return {
			person: `+44207946${digits}`,
			spellings: index % 2 === 0 ? [plain, trunk] : [trunk, plain],
		};
	});
}

/** The person a dialled number reaches: the UK trunk 0 after +44 and all but digits and + left out. */
const personOf = (number) => number.replace(/[^+\d]/g, '').replace(/^\+440/, '+44');

before(async () => {
	setup = await installedPackage();
	log(`n8n ${N8N_VERSION} runtime ready after ${setup.seconds} s`);
	sandbox = await startEmptySandbox(API_KEY, {
		apiKeys: [API_KEY, LIVE_API_KEY],
		profiles: { [LIVE_API_KEY]: 'live' },
	});
	api = sandboxClient(sandbox, API_KEY);
	liveApi = sandboxClient(sandbox, LIVE_API_KEY);
	await liveApi.call('POST', '/agent', { name: 'Live Parallel Desk', area_code: '650' });
	// One agent per test: the skip window and the hourly budget count the calling agent's calls only.
	for (const agent of ['Parallel Desk', 'Budget Desk', 'Lead Desk', 'Second Lead Desk']) {
		await api.call('POST', '/agent', { name: agent, area_code: '650' });
	}
	await importCredentials(setup.userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
		voiceAgentCredential(LIVE_CREDENTIAL, LIVE_API_KEY, sandbox.baseUrl),
	]);
	const [parallel, budget, liveParallel, ...leads] = await importWorkflows(setup.userFolder, [
		mcpWorkflow(
			'E2E: MCP tools, 5 calls at once',
			MCP_PATH,
			'6d1f0c2e-0000-4000-8000-0000000000a1',
			'Parallel Desk',
			CALLS_AT_ONCE,
		),
		mcpWorkflow(
			'E2E: MCP tools, a budget of 3',
			`${MCP_PATH}-budget`,
			'6d1f0c2e-0000-4000-8000-0000000000a2',
			'Budget Desk',
			{
				maxCallsPerHour: HOURLY_BUDGET,
			},
		),
		mcpWorkflow(
			'E2E: MCP tools, the live service',
			`${MCP_PATH}-live`,
			'6d1f0c2e-0000-4000-8000-0000000000a3',
			'Live Parallel Desk',
			CALLS_AT_ONCE,
			LIVE_CREDENTIAL,
		),
		...LEAD_WORKFLOWS.map(leadWebhookWorkflow),
	]);
	Object.assign(workflowIds, { parallel, budget, liveParallel });
	LEAD_WORKFLOWS.forEach((workflow, index) => (workflowIds[workflow.key] = leads[index]));
	server = await startN8nServer(setup.userFolder);
	log(`n8n started in ${server.startMs} ms at ${server.url}`);
	await server.setupOwnerAndLogin();
	for (const id of Object.values(workflowIds)) await server.rest.activateWorkflow(id);
});

after(async () => {
	await server?.stop();
	await sandbox?.close();
	setup?.remove();
});

const mcpUrl = (path) => `${server.url}/mcp/${path}`;

describe(
	`n8n ${N8N_VERSION}'s MCP Server Trigger with the Voice Agent tool`,
	{ timeout: 300_000 },
	() => {
		// The action names people read are short ("Create a real phone call"); what a client reads is unchanged: the
		// words n8n made from the former action names, for a tool saved before (Description Type: auto) and
		// for one added today.
		test('tools/list: each tool says what it does in the world and its rules', async () => {
			const client = await connectMcp(mcpUrl(MCP_PATH));
			const tools = Object.fromEntries(
				(await client.listTools()).map((tool) => [tool.name, tool.description]),
			);
			assert.deepEqual(tools, {
				[PLACE_CALL_TOOL]:
					'Place a real phone call to an allowed number within an hourly budget in Voice Agent',
				[READ_CALLS_TOOL]: 'Get many calls without changing anything in Voice Agent',
			});
		});

		test('parallel tool calls for one number, from one session and from three: one dial', async () => {
			await api.clearRequestLog();
			await api.control('POST', '/faults', SLOW_POST_CALL);
			try {
				const oneSession = await connectMcp(mcpUrl(MCP_PATH));
				const sessions = [
					oneSession,
					...(await Promise.all([1, 2].map(() => connectMcp(mcpUrl(MCP_PATH))))),
				];
				const number = '+16505550001';
				const started = Date.now();
				const results = await Promise.all([
					// Three calls at once on one session, as a client that runs a model's tool calls together...
					...[1, 2, 3].map(() => oneSession.callTool(PLACE_CALL_TOOL, { To: number })),
					// ...and one from each of two more sessions (other chats, other clients).
					...sessions.slice(1).map((session) => session.callTool(PLACE_CALL_TOOL, { To: number })),
				]);
				log(`5 parallel tool calls for one number answered in ${Date.now() - started} ms`);
				const outputs = results.map((result) => {
					assert.notEqual(result.isError, true, toolResultText(result));
					return JSON.parse(toolResultText(result));
				});
				const calls = outputs.map((output) => (Array.isArray(output) ? output[0] : output));
				const [placed, ...others] = [...calls].sort(
					(a, b) => (a.skipped ? 1 : 0) - (b.skipped ? 1 : 0),
				);
				assert.equal(placed.skipped, undefined);
				const reasons = {};
				for (const { skipReason } of others) {
					const reason = skipReason.replace(/call_\w+|agt_\w+/g, '…');
					reasons[reason] = (reasons[reason] ?? 0) + 1;
				}
				log(`what the clients are told of the skipped uses: ${JSON.stringify(reasons)}`);
				// Skipped for the claim (the call being placed) or for the skip window (the call placed): the same call.
				for (const skipped of others) {
					assert.equal(skipped.skipped, true);
					assert.equal(skipped.id, placed.id);
					assert.match(skipped.skipReason, /so it was not called again/);
				}
				assert.deepEqual(await dialled(), { [number]: 1 });
			} finally {
				await api.control('POST', '/faults', {});
			}
		});

		test('the live service (numeric IDs, a call that rings with no number): parallel tool calls for one number from three sessions, one dial', async () => {
			await liveApi.clearRequestLog();
			// The call rings (no number in the list) until the test ends.
			await liveApi.control('POST', '/live', { ring_ms: 600_000 });
			const sessions = await Promise.all(
				[1, 2, 3].map(() => connectMcp(mcpUrl(`${MCP_PATH}-live`))),
			);
			const number = '+16505550002';
			const results = await Promise.all(
				sessions.map((session) => session.callTool(PLACE_CALL_TOOL, { To: number })),
			);
			const calls = results.map((result) => {
				assert.notEqual(result.isError, true, toolResultText(result));
				const output = JSON.parse(toolResultText(result));
				return Array.isArray(output) ? output[0] : output;
			});
			const placed = calls.filter((call) => call.skipped !== true);
			assert.equal(placed.length, 1);
			assert.match(placed[0].id, /^\d+$/);
			assert.equal(placed[0].to, number);
			for (const skipped of calls.filter((call) => call.skipped === true)) {
				assert.equal(skipped.id, placed[0].id);
				assert.match(skipped.skipReason, /so it was not called again/);
			}
			assert.deepEqual(await dialled(liveApi), { [number]: 1 });
			// The second tool: the ringing call, read as the live service lists it.
			const read = JSON.parse(toolResultText(await sessions[0].callTool(READ_CALLS_TOOL, {})));
			const listed = (Array.isArray(read) ? read : [read]).find((call) => call.id === placed[0].id);
			assert.equal(listed.status, 'ringing');
		});

		test(`a loop of tool calls to allowed numbers stops at the budget (${HOURLY_BUDGET} an hour)`, async () => {
			await api.clearRequestLog();
			const client = await connectMcp(mcpUrl(`${MCP_PATH}-budget`));
			const answers = [];
			for (let index = 0; index < HOURLY_BUDGET + 2; index++) {
				const result = await client.callTool(PLACE_CALL_TOOL, { To: `+165055502${index}0` });
				answers.push({ isError: result.isError === true, text: toolResultText(result) });
			}
			assert.deepEqual(
				answers.map((answer) => answer.isError),
				[...Array(HOURLY_BUDGET).fill(false), true, true],
			);
			log(`what the client is told past the budget: ${answers[HOURLY_BUDGET].text}`);
			for (const refusal of answers.slice(HOURLY_BUDGET)) {
				assert.match(refusal.text, new RegExp(`Max Calls per Hour \\(${HOURLY_BUDGET}\\)`));
			}
			// In parallel too: the check and the claim are one step, so none gets past the budget.
			const parallel = await Promise.all(
				[1, 2, 3].map((index) => client.callTool(PLACE_CALL_TOOL, { To: `+165055503${index}0` })),
			);
			assert.deepEqual(
				parallel.map((result) => result.isError === true),
				[true, true, true],
			);
			assert.equal(Object.keys(await dialled()).length, HOURLY_BUDGET);
		});
	},
);

describe(
	`n8n ${N8N_VERSION}: published webhook workflows at node version ${NODE_VERSION} whose leads each arrive twice`,
	{ timeout: 600_000 },
	() => {
		for (const workflow of LEAD_WORKFLOWS) {
			const { gapMs, when } = workflow;
			test(`${workflow.title}: 20 leads, half of them UK numbers spelt two ways, delivered twice ${when}: each person phoned once`, async () => {
				const leads = roundLeads(workflow.round);
				await api.clearRequestLog();
				await api.control('POST', '/faults', { match: 'POST /call', latency_ms: 300 });
				try {
					const deliver = (phone) =>
						fetch(server.webhookUrl(workflow.path), {
							method: 'POST',
							headers: { 'content-type': 'application/json' },
							body: JSON.stringify({ phone }),
						});
					const started = Date.now();
					const first = leads.map(({ spellings }) => deliver(spellings[0]));
					if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
					const second = leads.map(({ spellings }) => deliver(spellings.at(-1)));
					for (const response of await Promise.all([...first, ...second]))
						assert.equal(response.status, 200);
					const executions = await server.rest.waitForExecutions(workflowIds[workflow.key], {
						count: leads.length * 2,
						timeoutMs: 180_000,
					});
					log(`${workflow.key}, ${when}: 40 deliveries run in ${Date.now() - started} ms`);
					const counts = await dialled();
					const twice = leads.filter(({ person }) => (counts[person] ?? 0) > 1);
					const failed = executions.filter((execution) => execution.status !== 'success');
					log(
						`${workflow.key}, ${when}: ${twice.length} of ${leads.length} people phoned twice, ${failed.length} of ${executions.length} executions failed`,
					);
					assert.deepEqual(
						twice.map(({ person }) => person),
						[],
						'phoned twice: ' + twice.map(({ person }) => `${person} ${counts[person]}×`).join(', '),
					);
					assert.deepEqual(Object.keys(counts).sort(), leads.map(({ person }) => person).sort());
					const outcomes = executions.map((execution) => {
						assert.equal(execution.status, 'success');
						const { runData } = execution.data.resultData;
						return {
							person: personOf(runData['New lead'][0].data.main[0][0].json.body.phone),
							call: runData.Call.at(-1).data.main[0][0].json,
						};
					});
					const reasons = {};
					for (const { call } of outcomes.filter(({ call }) => call.skipped)) {
						const reason = call.skipReason.replace(/call_\w+|agt_\w+|\+\d+|[Ee]xecution \d+/g, '…');
						reasons[reason] = (reasons[reason] ?? 0) + 1;
					}
					log(
						`${workflow.key}, ${when}: the skipped deliveries' reasons: ${JSON.stringify(reasons)}`,
					);
					for (const { person } of leads) {
						const mine = outcomes.filter((outcome) => outcome.person === person);
						assert.deepEqual(
							mine.map(({ call }) => call.skipped === true).sort(),
							[false, true],
							`${person}: ${JSON.stringify(mine)}`,
						);
						const [placed, skipped] = mine
							.map(({ call }) => call)
							.sort((a, b) => Number(a.skipped === true) - Number(b.skipped === true));
						assert.equal(skipped.id, placed.id, `${person}: the skipped delivery names the call`);
					}
				} finally {
					await api.control('POST', '/faults', {});
				}
			});
		}
	},
);
