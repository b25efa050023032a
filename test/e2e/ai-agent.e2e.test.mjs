// End-to-end: Call → Create keeps its promises when n8n's AI Agent uses it as a tool, and whatever 2xx
// answer POST /call gets under Retry On Fail. The packed package in a real, pinned n8n (the default, or
// the one VOICE_AGENT_N8N_VERSION names) through `n8n execute`, against the sandbox, whose request log
// counts every POST /call. The agent's model is a scripted OpenAI-compatible server
// (scripts/lib/scripted-model.mjs), reached through the OpenAI Chat Model node and an `openAiApi`
// credential whose Base URL points at it. AI Agent 2.2 (what workflows saved in n8n 1.x keep) runs a
// step's tool calls together; 3.1 (the default in 2.x; 3 in n8n 1.x) runs them one after the other.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { executeWorkflow, importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { majorOf, selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { startScriptedModel } from '../../scripts/lib/scripted-model.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';
import { chain, listAsItems, manualTrigger } from './support/workflows.mjs';

const API_KEY = 'e2e-ai-agent-key';
const CREDENTIAL = { id: 'VoiceAgentAiTool', name: 'Voice Agent (sandbox)' };
const MODEL_CREDENTIAL = { id: 'ScriptedModelApi', name: 'Scripted model' };
/** An account the sandbox serves as the live service answers: numeric IDs, no status, calls that ring first. */
const LIVE_API_KEY = 'e2e-ai-agent-live-key';
const LIVE_CREDENTIAL = { id: 'VoiceAgentAiToolLive', name: 'Voice Agent (live sandbox)' };
const RUNTIME = selectRuntime();
const N8N_VERSION = RUNTIME.n8n;
// 2.2, what workflows saved in n8n 1.x keep, and the current version: 3.1 in n8n 2.x, 3 in 1.x.
const AGENT_VERSIONS = [2.2, majorOf(RUNTIME) >= 2 ? 3.1 : 3];
const log = (line) => console.log(`[e2e] ${line}`);

const NUMBERS = ['+14155550101', '+14155550102', '+14155550103'];
const LIMIT_REACHED = /Max Calls per Run \(1\) is reached/;
/** A From that is no agent's phone number: the service refuses the call (400). */
const NO_AGENTS_NUMBER = '+14150000001';
const FROM_REFUSED = `The Voice Agent API rejected the request: From (Agent) must be the phone_number of one of your agents; ${NO_AGENTS_NUMBER} is not`;

let sandbox;
let api;
let liveApi;
let model;
let userFolder;
let setup;
const workflowIds = {};

/** How many times each number was dialled (POST /call answered 2xx), from the sandbox's request log. */
async function dialled(client = api) {
	const counts = {};
	for (const request of await client.requestLog()) {
		if (request.method !== 'POST' || request.path !== '/v1/call') continue;
		if (!(request.status >= 200 && request.status < 300)) continue;
		counts[request.body.to] = (counts[request.body.to] ?? 0) + 1;
	}
	return counts;
}

/**
 * Manual Trigger → AI Agent, with the scripted model and Call → Create (version 1.2, the default) as its
 * tool ("Place Call"), calling from `voiceAgent`. Each workflow has its own voice agent: the skip window
 * (15 minutes by default) looks at the calling agent's calls only, so one test's calls do not skip the next.
 */
function agentWorkflow(name, agentVersion, maxCallsPerRun, voiceAgent, credential = CREDENTIAL) {
	const agent = {
		name: 'AI Agent',
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: agentVersion,
		position: [200, 0],
		parameters: { promptType: 'define', text: 'Call the numbers you are given.', options: {} },
	};
	const chatModel = {
		name: 'OpenAI Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.3,
		position: [100, 200],
		parameters: {
			model: { __rl: true, mode: 'id', value: 'scripted' },
			responsesApiEnabled: false,
			options: {},
		},
		credentials: { openAiApi: MODEL_CREDENTIAL },
	};
	const tool = {
		name: 'Place Call',
		type: 'n8n-nodes-voice-agent.voiceAgentTool',
		typeVersion: 1.2,
		position: [300, 200],
		parameters: {
			descriptionType: 'auto',
			resource: 'call',
			operation: 'create',
			from: { __rl: true, mode: 'name', value: voiceAgent },
			to: "={{ $fromAI('To', 'The number to call', 'string') }}",
			options: { allowedDestinations: '+1415', maxCallsPerRun },
		},
		credentials: { voiceAgentApi: credential },
	};
	return {
		name,
		nodes: [manualTrigger(), agent, chatModel, tool],
		connections: {
			Run: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': {
				ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
			},
			'Place Call': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		},
	};
}

/**
 * Manual Trigger → one item per call → Call → Create version 1.1 (no skip window: only the node's
 * memory of its own calls stands between the tries) with Retry On Fail, 3 tries. Each item gives From
 * as a phone number, which the node sends as it is: the second item's is no agent's, so the service
 * refuses that call when the node runs, after the first item's call was placed.
 */
function retryWorkflow(name, calls) {
	const call = {
		name: 'Call',
		type: 'n8n-nodes-voice-agent.voiceAgent',
		typeVersion: 1.1,
		position: [600, 0],
		parameters: {
			resource: 'call',
			operation: 'create',
			from: { __rl: true, mode: 'phoneNumber', value: '={{ $json.from }}' },
			to: '={{ $json.to }}',
			options: { allowedDestinations: '+1415' },
		},
		credentials: { voiceAgentApi: CREDENTIAL },
		retryOnFail: true,
		maxTries: 3,
		waitBetweenTries: 100,
	};
	const nodes = [manualTrigger(), ...listAsItems('calls', calls), call];
	return { name, nodes, connections: chain(nodes) };
}

/** What the tool's result told the model, parsed: n8n hands it the tool's output as JSON text. */
function told(result) {
	assert.equal(typeof result.content, 'string', `no tool result for ${result.toolCallId}`);
	let value;
	try {
		value = JSON.parse(result.content);
	} catch {
		return { text: result.content };
	}
	return Array.isArray(value) && value.length === 1 ? value[0] : value;
}

before(async () => {
	setup = await installedPackage();
	({ userFolder } = setup);
	log(`n8n ${N8N_VERSION} runtime ready after ${setup.seconds} s`);
	sandbox = await startEmptySandbox(API_KEY, {
		apiKeys: [API_KEY, LIVE_API_KEY],
		profiles: { [LIVE_API_KEY]: 'live' },
	});
	api = sandboxClient(sandbox, API_KEY);
	liveApi = sandboxClient(sandbox, LIVE_API_KEY);
	model = await startScriptedModel();
	const frontDesk = await api.call('POST', '/agent', { name: 'Front Desk', area_code: '415' });
	await importCredentials(userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
		voiceAgentCredential(LIVE_CREDENTIAL, LIVE_API_KEY, sandbox.baseUrl),
		{ ...MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'scripted-key', url: model.url } },
	]);
	const workflows = [];
	for (const version of AGENT_VERSIONS) {
		for (const [key, title, maxCalls] of [
			[`same-${version}`, 'same number', 5],
			[`limit-${version}`, 'limit 1', 1],
		]) {
			const voiceAgent = `Tool Desk ${key}`;
			await api.call('POST', '/agent', { name: voiceAgent, area_code: '415' });
			workflows.push([
				key,
				agentWorkflow(`E2E: AI Agent ${version}, ${title}`, version, maxCalls, voiceAgent),
			]);
		}
	}
	for (const version of AGENT_VERSIONS) {
		const voiceAgent = `Live Tool Desk ${version}`;
		await liveApi.call('POST', '/agent', { name: voiceAgent, area_code: '415' });
		workflows.push([
			`live-${version}`,
			agentWorkflow(
				`E2E: AI Agent ${version}, the live service`,
				version,
				5,
				voiceAgent,
				LIVE_CREDENTIAL,
			),
		]);
	}
	workflows.push([
		'retry',
		retryWorkflow('E2E: answer shapes with Retry On Fail', [
			{ to: NUMBERS[0], from: frontDesk.phone_number },
			{ to: NUMBERS[1], from: NO_AGENTS_NUMBER },
		]),
	]);
	const ids = await importWorkflows(
		userFolder,
		workflows.map(([, workflow]) => workflow),
	);
	workflows.forEach(([key], index) => (workflowIds[key] = ids[index]));
});

after(async () => {
	await model?.close();
	await sandbox?.close();
	setup?.remove();
});

describe(`Call → Create as the tool of n8n ${N8N_VERSION}'s AI Agent`, { timeout: 600_000 }, () => {
	for (const version of AGENT_VERSIONS) {
		test(`AI Agent ${version}: the same number twice in one step is phoned once, the other use is told it was skipped`, async () => {
			await api.clearRequestLog();
			model.script([{ To: NUMBERS[0] }, { To: NUMBERS[0] }]);

			const run = await executeWorkflow(userFolder, workflowIds[`same-${version}`]);

			assert.equal(run.data.resultData.error, undefined);
			assert.deepEqual(await dialled(), { [NUMBERS[0]]: 1 });
			// What the model is told the tool does: unchanged since the action names became short.
			const [firstRequest] = model.requests();
			assert.deepEqual(
				firstRequest.tools.map(({ function: tool }) => [tool.name, tool.description]),
				[
					[
						'Place_Call',
						'Place a real phone call to an allowed number within an hourly budget in Voice Agent',
					],
				],
			);
			const results = model.toolResults().map(told);
			log(`AI Agent ${version} told the model: ${JSON.stringify(results)}`);
			const placed = results.filter((result) => result.skipped !== true);
			const skipped = results.filter((result) => result.skipped === true);
			assert.equal(placed.length, 1);
			assert.equal(skipped.length, 1);
			assert.equal(placed[0].to, NUMBERS[0]);
			assert.equal(typeof placed[0].id, 'string');
			assert.equal(skipped[0].id, placed[0].id);
			assert.match(skipped[0].skipReason, new RegExp(`call ${placed[0].id}`));
		});

		test(`AI Agent ${version}, the live service (numeric IDs, the call ringing with no number): the same number twice in one step is phoned once`, async () => {
			await liveApi.clearRequestLog();
			model.script([{ To: NUMBERS[1] }, { To: NUMBERS[1] }]);

			const run = await executeWorkflow(userFolder, workflowIds[`live-${version}`]);

			assert.equal(run.data.resultData.error, undefined);
			assert.deepEqual(await dialled(liveApi), { [NUMBERS[1]]: 1 });
			const results = model.toolResults().map(told);
			log(`AI Agent ${version} (live service) told the model: ${JSON.stringify(results)}`);
			const placed = results.filter((result) => result.skipped !== true);
			const skipped = results.filter((result) => result.skipped === true);
			assert.equal(placed.length, 1);
			assert.equal(skipped.length, 1);
			// The service's numeric ID, output as text; the number dialled, though the live call has none yet.
			assert.match(placed[0].id, /^\d+$/);
			assert.equal(placed[0].to, NUMBERS[1]);
			assert.equal(skipped[0].id, placed[0].id);
		});

		describe(`AI Agent ${version}: three numbers in one step with Max Calls per Run 1`, () => {
			let run;
			let counts;
			let results;

			before(async () => {
				await api.clearRequestLog();
				model.script(NUMBERS.map((to) => ({ To: to })));
				run = await executeWorkflow(userFolder, workflowIds[`limit-${version}`]);
				counts = await dialled();
				results = model.toolResults();
				log(`AI Agent ${version} told the model: ${JSON.stringify(results.map((r) => r.content))}`);
			});

			test('exactly one number is phoned', () => {
				assert.deepEqual(Object.values(counts), [1]);
			});

			// Call → Create refuses a call over the limit by failing, before anything is sent; what the model
			// learns of that is n8n's to decide, and differs by AI Agent version.
			if (version === 2.2) {
				test("the run goes on; n8n's AI Agent 2.2 hands the model an empty string for the two refused uses", () => {
					assert.equal(run.data.resultData.error, undefined);
					const [phoned] = Object.keys(counts);
					const others = results.filter((result) => result.arguments.To !== phoned);
					assert.equal(others.length, 2);
					for (const result of others) assert.equal(result.content ?? '', '');
				});
			} else if (majorOf(RUNTIME) >= 2) {
				test('the run goes on: the model gets the call for the phoned number and is told the limit for the other two', () => {
					assert.equal(run.data.resultData.error, undefined);
					const [phoned] = Object.keys(counts);
					const placed = results.filter((result) => result.arguments.To === phoned);
					assert.equal(placed.length, 1);
					assert.equal(told(placed[0]).to, phoned);
					assert.equal(told(placed[0]).skipped, undefined);
					const others = results.filter((result) => result.arguments.To !== phoned);
					assert.equal(others.length, 2);
					for (const result of others) assert.match(result.content ?? '', LIMIT_REACHED);
				});
			} else {
				test("n8n 1.x's AI Agent 3 stops the run with the tool's error, which names the limit", () => {
					assert.match(run.data.resultData.error?.message ?? '', LIMIT_REACHED);
				});
			}
		});
	}

	for (const shape of ['status_call_id', 'empty_202', 'null']) {
		test(`POST /call answered ${shape}, Retry On Fail (3 tries), the second call refused each time: the first number is phoned once, the second never`, async () => {
			await api.clearRequestLog();
			await api.control('POST', '/variants', { create_answer: shape });
			const run = await executeWorkflow(userFolder, workflowIds.retry).finally(() =>
				api.control('POST', '/variants', {}),
			);

			assert.deepEqual(await dialled(), { [NUMBERS[0]]: 1 });
			assert.equal(run.data.resultData.error?.message, FROM_REFUSED);
			// The service refused the second call at each of the 3 tries: n8n did run the node 3 times.
			const refused = (await api.requestLog()).filter(
				(request) =>
					request.method === 'POST' && request.path === '/v1/call' && request.status === 400,
			);
			assert.deepEqual(
				refused.map((request) => request.body.to),
				[NUMBERS[1], NUMBERS[1], NUMBERS[1]],
			);
		});
	}
});
