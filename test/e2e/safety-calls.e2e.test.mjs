// End-to-end: nobody is phoned twice when n8n itself runs Call → Create again. The packed package in a
// real, pinned n8n (the default, or the one VOICE_AGENT_N8N_VERSION names), against the sandbox, whose
// request log counts every POST /call. n8n's Retry On Fail through `n8n execute`; *Retry execution*
// (POST /rest/executions/:id/retry, what the executions list's "Retry" sends) and a redelivered event on
// a real `n8n start`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { executeWorkflow, importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';
import { chain, listAsItems } from './support/workflows.mjs';

const API_KEY = 'e2e-safety-key';
const CREDENTIAL = { id: 'VoiceAgentSafety', name: 'Voice Agent (sandbox)' };
const N8N_VERSION = selectRuntime().n8n;
const log = (line) => console.log(`[e2e] ${line}`);

const ALLOWED = ['+14155550101', '+14155550102'];
// The service refuses the third POST /call and every later one until a test lifts it: that item fails
// when the node runs, after the other items were placed (input that is wrong, or an agent that does not
// exist, fails before any call is placed).
const LATE = '+14155550103';
const REFUSE_LATE = { match: 'POST /call', skip: 2, error_rate: 1, status: 400 };
const REFUSED =
	/^The Voice Agent API rejected the request: Injected fault \(sandbox\): POST \/call answered 400/;

let sandbox;
let api;
let userFolder;
let setup;

/** How many times each number was dialled (POST /call answered 200), from the sandbox's request log. */
async function dialled() {
	const counts = {};
	for (const request of await api.requestLog()) {
		if (request.method !== 'POST' || request.path !== '/v1/call' || request.status !== 200)
			continue;
		counts[request.body.to] = (counts[request.body.to] ?? 0) + 1;
	}
	return counts;
}

/** Nodes that turn a list of numbers into one item per number, then place a call for each. */
function callEachNumber(first, createNode) {
	const nodes = [first, ...listAsItems('numbers', [...ALLOWED, LATE]), createNode];
	return { nodes, connections: chain(nodes) };
}

/** Call → Create over the items' `numbers`, calling only +1415 numbers. */
function createCallNode({ typeVersion, agent, settings = {} }) {
	return {
		name: 'Call',
		type: 'n8n-nodes-voice-agent.voiceAgent',
		typeVersion,
		position: [600, 0],
		parameters: {
			resource: 'call',
			operation: 'create',
			from: { __rl: true, mode: 'name', value: agent },
			to: '={{ $json.numbers }}',
			options: { allowedDestinations: '+1415' },
		},
		credentials: { voiceAgentApi: CREDENTIAL },
		...settings,
	};
}

before(async () => {
	setup = await installedPackage();
	({ userFolder } = setup);
	log(`n8n ${N8N_VERSION} runtime ready after ${setup.seconds} s`);
	sandbox = await startEmptySandbox(API_KEY);
	api = sandboxClient(sandbox, API_KEY);
	// One agent per test: the skip window looks at the calling agent's calls only.
	await api.call('POST', '/agent', { name: 'Front Desk', area_code: '415' });
	await api.call('POST', '/agent', { name: 'Follow-up Desk', area_code: '415' });
	await api.call('POST', '/agent', { name: 'Tool Desk', area_code: '415' });
	await importCredentials(userFolder, [voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl)]);
});

after(async () => {
	await sandbox?.close();
	setup?.remove();
});

describe(`Call → Create run again by n8n ${N8N_VERSION}`, { timeout: 600_000 }, () => {
	test('Retry On Fail (3 tries) with an item that fails: each other number is phoned once', async () => {
		await api.clearRequestLog();
		const manual = {
			name: 'Run',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		// Version 1.1 has no skip window: only the node's memory of its own calls stands between the tries.
		const createNode = createCallNode({
			typeVersion: 1.1,
			agent: 'Front Desk',
			settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 },
		});
		const [id] = await importWorkflows(userFolder, [
			{ name: 'E2E: Retry On Fail', ...callEachNumber(manual, createNode) },
		]);

		await api.control('POST', '/faults', REFUSE_LATE);
		const run = await executeWorkflow(userFolder, id).finally(() =>
			api.control('POST', '/faults', {}),
		);

		assert.match(run.data.resultData.error?.message, REFUSED);
		assert.deepEqual(await dialled(), { [ALLOWED[0]]: 1, [ALLOWED[1]]: 1 });
	});

	/**
	 * The tool variant run by n8n's own Tool Executor (what the editor adds to run a tool node on its own):
	 * n8n builds the tool as for an AI Agent and calls it with the arguments a model would give.
	 */
	function toolWorkflow(name, options) {
		const tool = {
			name: 'Place call',
			type: 'n8n-nodes-voice-agent.voiceAgentTool',
			typeVersion: 1.2,
			position: [200, 200],
			parameters: {
				descriptionType: 'auto',
				resource: 'call',
				operation: 'create',
				from: { __rl: true, mode: 'name', value: 'Tool Desk' },
				to: "={{ $fromAI('To', 'The number to call', 'string') }}",
				options,
			},
			credentials: { voiceAgentApi: CREDENTIAL },
		};
		const executor = {
			name: 'Tool Executor',
			type: '@n8n/n8n-nodes-langchain.toolExecutor',
			typeVersion: 1,
			position: [200, 0],
			// n8n 2.x reads the tool's arguments under its name, 1.x takes the whole query as them.
			parameters: {
				query: JSON.stringify({ Place_call: { To: ALLOWED[0] }, To: ALLOWED[0] }),
				toolName: '',
				node: '',
			},
		};
		const manual = {
			name: 'Run',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		return {
			name,
			nodes: [manual, executor, tool],
			connections: {
				Run: { main: [[{ node: 'Tool Executor', type: 'main', index: 0 }]] },
				'Place call': { ai_tool: [[{ node: 'Tool Executor', type: 'ai_tool', index: 0 }]] },
			},
		};
	}

	test('as an AI tool without Allowed Destinations it places nothing; with them it calls', async () => {
		await api.clearRequestLog();
		const [refusing, allowing] = await importWorkflows(userFolder, [
			toolWorkflow('E2E: tool without Allowed Destinations', {}),
			toolWorkflow('E2E: tool with Allowed Destinations', { allowedDestinations: '+1415' }),
		]);

		const refused = await executeWorkflow(userFolder, refusing);

		// What the AI Agent would hand the model: the refusal and what to do about it.
		assert.equal(
			refused.data.resultData.error?.message,
			`Error executing tool: Allowed Destinations are empty: as an AI tool this node contacts only numbers listed there, so ${ALLOWED[0]} was not contacted [item 0]\n\n` +
				'Details: Set Allowed Destinations (Options) in the node to the numbers or prefixes the AI model may reach.',
		);
		assert.deepEqual(await api.requestLog(), []);

		const allowed = await executeWorkflow(userFolder, allowing);

		assert.equal(allowed.data.resultData.error, undefined);
		assert.deepEqual(await dialled(), { [ALLOWED[0]]: 1 });
	});

	describe('on a real n8n start', () => {
		let server;
		let workflowId;
		const workflow = () => ({
			name: 'E2E: follow-up call on an event',
			...callEachNumber(
				{
					name: 'Event',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: '5a7e3c1d-0000-4000-8000-00000000fa11',
					parameters: { httpMethod: 'POST', path: 'safety-follow-up', options: {} },
				},
				// Version 1.2, the default: Skip If Called Within (Minutes) is 15.
				createCallNode({ typeVersion: 1.2, agent: 'Follow-up Desk' }),
			),
		});

		before(async () => {
			[workflowId] = await importWorkflows(userFolder, [workflow()]);
			server = await startN8nServer(userFolder);
			log(`n8n started in ${server.startMs} ms at ${server.url}`);
			await server.setupOwnerAndLogin();
			await server.rest.activateWorkflow(workflowId);
		});

		after(async () => {
			await server?.stop();
		});

		/** Delivers the event and waits for the execution it starts, returned with its data. */
		async function deliver(count) {
			const response = await fetch(server.webhookUrl('safety-follow-up'), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{"event_type":"call_ended"}',
			});
			assert.equal(response.status, 200);
			const [newest] = await server.rest.waitForExecutions(workflowId, { count });
			return newest;
		}

		async function retry(executionId, loadWorkflow, count) {
			await server.rest.request('POST', `/rest/executions/${executionId}/retry`, { loadWorkflow });
			const [newest] = await server.rest.waitForExecutions(workflowId, { count });
			assert.equal(newest.retryOf, executionId);
			return newest;
		}

		const callRun = (execution) => execution.data.resultData.runData.Call.at(-1);

		test('Retry execution and a redelivered event place nothing new; a fixed workflow places only what is missing', async () => {
			await api.clearRequestLog();
			await api.control('POST', '/faults', REFUSE_LATE);
			const failed = await deliver(1);
			assert.equal(failed.status, 'error');
			assert.match(callRun(failed).error.message, REFUSED);
			assert.deepEqual(await dialled(), { [ALLOWED[0]]: 1, [ALLOWED[1]]: 1 });

			// "Retry with original workflow": the same items again; the late one fails again.
			const retried = await retry(failed.id, false, 2);
			assert.equal(retried.status, 'error');
			assert.deepEqual(await dialled(), { [ALLOWED[0]]: 1, [ALLOWED[1]]: 1 });

			// The service delivers the event again: a new execution, whose window finds the calls.
			const redelivered = await deliver(3);
			assert.equal(redelivered.status, 'error');
			assert.equal(redelivered.retryOf ?? undefined, undefined);
			assert.deepEqual(await dialled(), { [ALLOWED[0]]: 1, [ALLOWED[1]]: 1 });

			// The service takes calls again; the user retries with the saved workflow.
			await api.control('POST', '/faults', {});
			const fixed = await retry(failed.id, true, 4);
			assert.equal(fixed.status, 'success');
			const output = callRun(fixed).data.main[0].map((item) => item.json);
			assert.deepEqual(
				output.map((call) => [call.to, call.skipped ?? false]),
				[
					[ALLOWED[0], true],
					[ALLOWED[1], true],
					[LATE, false],
				],
			);
			assert.equal(
				output[0].skipReason,
				`Execution ${failed.id}, which this execution retries, placed this call already, so it was not placed again`,
			);
			assert.deepEqual(await dialled(), { [ALLOWED[0]]: 1, [ALLOWED[1]]: 1, [LATE]: 1 });
		});
	});
});
