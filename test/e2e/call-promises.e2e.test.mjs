// End-to-end: Call → Create's promises over a list, in the real, pinned n8n (the default, or the one
// VOICE_AGENT_N8N_VERSION names), through `n8n execute`, against a sandbox whose calls last 2.5 s and
// whose call-load endpoint says how many calls were in progress at once and how many were created in
// any 60 s window: Calls at Once holds past Max Wait, the pace holds across Retry On Fail tries, a bad
// item phones nobody, and a call that ends with a status nobody listed has ended.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { executeWorkflow, importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';
import { chain, listAsItems, manualTrigger } from './support/workflows.mjs';

const API_KEY = 'e2e-call-promises-key';
const CREDENTIAL = { id: 'VoiceAgentPromises', name: 'Voice Agent (sandbox)' };
const N8N_VERSION = selectRuntime().n8n;
const log = (line) => console.log(`[e2e] ${line}`);

const numbers = (count) =>
	Array.from({ length: count }, (_, index) => `+1415555${String(1001 + index)}`);

let sandbox;
let api;
let setup;
let agent;
const ids = {};

/** Manual Trigger → the numbers as items → Call → Create with these parameters and settings. */
function callList(name, list, create, settings = {}) {
	const nodes = [
		manualTrigger(),
		...listAsItems('numbers', list),
		{
			name: 'Call',
			type: 'n8n-nodes-voice-agent.voiceAgent',
			typeVersion: 1.1,
			position: [600, 0],
			parameters: {
				resource: 'call',
				operation: 'create',
				to: '={{ $json.numbers }}',
				...create,
				options: { allowedDestinations: '+1415', ...create.options },
			},
			credentials: { voiceAgentApi: CREDENTIAL },
			...settings,
		},
	];
	return { name, nodes, connections: chain(nodes) };
}

const byName = { __rl: true, mode: 'name', value: 'Front Desk' };

/** A clean slate between tests: the last test's calls have ended, and the counts start again. */
async function freshCounts() {
	await new Promise((resolve) => setTimeout(resolve, 3_000));
	await api.control('POST', '/faults', {});
	await api.control('DELETE', '/call-load');
	await api.clearRequestLog();
}

async function callLoad() {
	return (await api.control('GET', '/call-load')).accounts[0];
}

async function posts() {
	return (await api.requestLog()).filter(
		(request) => request.method === 'POST' && request.path === '/v1/call',
	);
}

const callOutputs = (run) =>
	run.data.resultData.runData.Call.at(-1).data.main[0].map((item) => item.json);

before(async () => {
	setup = await installedPackage();
	log(`n8n ${N8N_VERSION} runtime ready after ${setup.seconds} s`);
	sandbox = await startEmptySandbox(API_KEY, { callDurationMs: 2_500 });
	api = sandboxClient(sandbox, API_KEY);
	agent = await api.call('POST', '/agent', { name: 'Front Desk', area_code: '415' });
	await importCredentials(setup.userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
	]);
	const waitPastMaxWait = { waitForEnd: true, maxWaitMinutes: 0.01, firstCheckSeconds: 1 };
	[ids.atOnce, ids.pace, ids.badItem, ids.endStatus] = await importWorkflows(setup.userFolder, [
		callList('E2E: Calls at Once past Max Wait', numbers(6), {
			from: byName,
			options: { callsAtOnce: 2, ...waitPastMaxWait },
		}),
		callList(
			'E2E: the pace across Retry On Fail',
			numbers(3),
			{ from: byName, options: { maxCallsPerMinute: 2 } },
			{ retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		),
		callList('E2E: an empty agent ID in item 3', numbers(5), {
			from: {
				__rl: true,
				mode: 'id',
				value: `={{ $json.numbers === "${numbers(5)[2]}" ? "" : "${agent.id}" }}`,
			},
			options: {},
		}),
		callList('E2E: a call ending as no-answer', numbers(1), {
			from: byName,
			options: { waitForEnd: true, firstCheckSeconds: 1 },
		}),
	]);
});

after(async () => {
	await sandbox?.close();
	setup?.remove();
});

describe(`Call → Create's promises over a list in n8n ${N8N_VERSION}`, { timeout: 600_000 }, () => {
	test('Calls at Once 2, six calls that outlast Max Wait: never more than 2 in progress', async () => {
		await freshCounts();

		const run = await executeWorkflow(setup.userFolder, ids.atOnce);

		assert.equal(run.data.resultData.error, undefined);
		assert.deepEqual(
			callOutputs(run).map((call) => call.ended),
			Array(6).fill(false),
		);
		const load = await callLoad();
		assert.equal(load.calls_created, 6);
		assert.equal(load.max_in_progress, 2);
	});

	test('Max New Calls per Minute 2 and Retry On Fail after a failed lookup: never 3 calls within 60 s', async () => {
		await freshCounts();
		// The third item's look at the call list is refused once: the node fails and n8n runs it again.
		await api.control('POST', '/faults', {
			match: 'GET /calls',
			skip: 2,
			times: 1,
			error_rate: 1,
			status: 400,
		});

		const run = await executeWorkflow(setup.userFolder, ids.pace);

		assert.equal(run.data.resultData.error, undefined);
		const load = await callLoad();
		assert.equal(load.calls_created, 3);
		assert.equal(load.max_created_in_60s, 2);
	});

	test('an empty agent ID in item 3 fails the node before anyone is phoned', async () => {
		await freshCounts();

		const run = await executeWorkflow(setup.userFolder, ids.badItem);

		assert.equal(run.data.resultData.error?.message, 'From (Agent) must not be empty [item 2]');
		assert.deepEqual(await posts(), []);
	});

	test('a call that ends as no-answer, a status nobody listed, has ended: output with that status', async () => {
		await freshCounts();
		await api.control('POST', '/variants', { end_statuses: ['no-answer'] });

		const run = await executeWorkflow(setup.userFolder, ids.endStatus);

		assert.equal(run.data.resultData.error, undefined);
		const [call] = callOutputs(run);
		assert.equal(call.status, 'no-answer');
		assert.equal(call.ended, true);
	});
});
