// End-to-end: the Voice Agent Call History Trigger in a real, pinned n8n (the default, or the one
// VOICE_AGENT_N8N_VERSION names), the packed package installed as users install it. The export example,
// published and polling every minute, runs across several polls and a restart of n8n while calls start
// and end: every call that ended runs exactly once, none twice, and each becomes a CSV row with its
// transcript as text. A backlog of 2,100 ended calls, some with end statuses the contract does not list,
// read with All History under GET /call faults, in batches of Max Calls per Poll: every call runs once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT as root } from '../../scripts/lib/community-package.mjs';
import { importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { requestSandbox } from '../../scripts/lib/sandbox-client.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-history-key';
const CREDENTIAL = { id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' };
/** Another account of the sandbox, for the backlog: its calls never reach the export example. */
const BACKLOG_KEY = 'e2e-backlog-key';
const BACKLOG_CREDENTIAL = { id: 'VoiceAgentBacklg', name: 'Voice Agent (backlog)' };
const BACKLOG_CALLS = 2_100;
const BACKLOG_STATUSES = ['completed', 'no-answer', 'completed', 'busy', 'voicemail'];
const TRIGGER = 'Calls ended since yesterday';
const N8N_VERSION = selectRuntime().n8n;
/** A poll every minute: an execution shows up within about 60 s of the poll that finds its calls. */
const POLL_WAIT_MS = 150_000;
const log = (line) => console.log(`[e2e] ${line}`);

let sandbox;
let userFolder;
let setup;
let server;
let agent;
let workflowId;
let backlogWorkflowId;

const sandboxCall = (method, urlPath, body, options) =>
	requestSandbox(sandbox, API_KEY, method, urlPath, body, options);
const placeCall = (to) =>
	sandboxCall('POST', '/call', { from: agent.phone_number, to, context: `Call to ${to}` });
const endCall = (call) =>
	sandboxCall('POST', `/calls/${call.id}/complete`, { status: 'completed' }, { control: true });

async function startServer() {
	server = await startN8nServer(userFolder);
	log(`n8n ${N8N_VERSION} started in ${server.startMs} ms at ${server.url}`);
	await server.setupOwnerAndLogin();
}

/** Every finished execution of the workflow, oldest first, with the trigger's and the Set node's items. */
async function executions(id = workflowId) {
	const listed = await server.rest.listExecutions({ workflowId: id });
	const done = listed.filter((entry) => !['new', 'running', 'waiting'].includes(entry.status));
	const full = await Promise.all(done.map((entry) => server.rest.getExecution(entry.id)));
	return full
		.sort((a, b) => Number(a.id) - Number(b.id))
		.map((execution) => {
			const runData = execution.data.resultData.runData;
			const items = (name) => runData[name]?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];
			const file = runData['Transcripts as CSV']?.[0]?.data?.main?.[0]?.[0]?.binary?.data;
			return {
				status: execution.status,
				calls: items(TRIGGER).length > 0 ? items(TRIGGER) : items('Backlog'),
				rows: items('One row per call'),
				file,
			};
		});
}

/** The backlog workflow's executions until they hold `count` calls, within `timeoutMs`. */
async function waitForBacklog(count, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const runs = await executions(backlogWorkflowId);
		const calls = runs.flatMap((run) => run.calls);
		if (calls.length >= count) return runs;
		if (Date.now() > deadline)
			throw new Error(`${calls.length} of ${count} calls after ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 2000));
	}
}

/** Waits until the workflow has run `count` times, and answers all its executions. */
async function waitForRuns(count) {
	const deadline = Date.now() + POLL_WAIT_MS;
	for (;;) {
		const runs = await executions();
		if (runs.length >= count) return runs;
		if (Date.now() > deadline)
			throw new Error(`${runs.length} of ${count} executions after ${POLL_WAIT_MS} ms`);
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

before(async () => {
	setup = await installedPackage();
	({ userFolder } = setup);

	sandbox = await startEmptySandbox(API_KEY, {
		apiKeys: [API_KEY, BACKLOG_KEY],
		callDurationMs: 3_600_000,
	});
	// A history the trigger must not output: it starts from now.
	await sandboxCall('POST', '/seed', { agents: 2, calls: 40 }, { control: true });
	agent = await sandboxCall('POST', '/agent', { name: 'E2E History Desk', area_code: '415' });
	await importCredentials(userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
		voiceAgentCredential(BACKLOG_CREDENTIAL, BACKLOG_KEY, sandbox.baseUrl),
	]);
	// The export example as shipped, polling every minute instead of every morning at 7:00.
	const example = JSON.parse(
		readFileSync(path.join(root, 'examples', 'export-call-transcripts.json'), 'utf8'),
	);
	example.nodes.find((node) => node.name === TRIGGER).parameters.pollTimes = {
		item: [{ mode: 'everyMinute' }],
	};
	const backlog = {
		name: 'Call history backlog',
		nodes: [
			{
				name: 'Backlog',
				type: 'n8n-nodes-voice-agent.voiceAgentCallHistoryTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					event: 'callEnded',
					options: { startFrom: 'allHistory', maxCallsPerPoll: 1_100 },
				},
				credentials: { voiceAgentApi: BACKLOG_CREDENTIAL },
			},
		],
	};
	[workflowId, backlogWorkflowId] = await importWorkflows(userFolder, [example, backlog]);
	await startServer();
});

after(async () => {
	await server?.stop();
	await sandbox?.close();
	setup?.remove();
});

describe(
	`Voice Agent Call History Trigger in a running n8n ${N8N_VERSION}`,
	{ timeout: 900_000 },
	() => {
		test('the export example, published: every ended call runs once across polls and a restart, as a CSV row with its transcript', async () => {
			await server.rest.activateWorkflow(workflowId);
			const [a, b] = [await placeCall('+14155550101'), await placeCall('+14155550102')];
			await endCall(a);
			let runs = await waitForRuns(1);
			log(`poll 1: ${runs[0].calls.map((call) => call.id).join(', ')}`);

			const c = await placeCall('+14155550103');
			await endCall(b);
			runs = await waitForRuns(2);
			log(`poll 2: ${runs[1].calls.map((call) => call.id).join(', ')}`);

			// C ends, then n8n stops before polling it; D starts and ends while n8n is down.
			await endCall(c);
			await server.stop();
			const d = await placeCall('+14155550104');
			await endCall(d);
			await startServer();
			runs = await waitForRuns(3);
			log(`after the restart: ${runs[2].calls.map((call) => call.id).join(', ')}`);

			const e = await placeCall('+14155550105');
			await endCall(e);
			runs = await waitForRuns(4);
			// One more poll with nothing new: no run.
			await new Promise((resolve) => setTimeout(resolve, 65_000));
			runs = await executions();

			const ended = [a, b, c, d, e].map((call) => call.id);
			const runIds = runs.map((run) => run.calls.map((call) => call.id));
			assert.deepEqual(runIds.flat().sort(), [...ended].sort(), 'every ended call, each once');
			assert.deepEqual(runIds.slice(0, 2), [[a.id], [b.id]]);
			assert.deepEqual(runIds[2].sort(), [c.id, d.id].sort());
			assert.deepEqual(runIds[3], [e.id]);
			assert.equal(runs.length, 4, 'no run without a new ended call');
			for (const run of runs) {
				assert.equal(run.status, 'success');
				assert.match(run.file.fileName, /^call-transcripts-\d{4}-\d{2}-\d{2}\.csv$/);
				assert.equal(run.file.mimeType, 'text/csv');
				for (const [index, call] of run.calls.entries()) {
					const row = run.rows[index];
					assert.equal(row.call_id, call.id);
					assert.equal(row.customer_number, call.to);
					assert.equal(row.status, 'completed');
					assert.equal(call.transcript, undefined, 'Transcript Format: Text');
					const full = await sandboxCall('GET', `/call?id=${call.id}`);
					const lines = full.transcript.map(
						(entry) => `${entry.speaker === 'agent' ? 'Agent' : 'Customer'}: ${entry.text}`,
					);
					assert.equal(row.transcript, lines.join('\n'));
				}
			}
		});

		test('a backlog of 2,100 ended calls under GET /call faults, All History in batches: every call once, unknown end statuses as given', async () => {
			const backlogCall = (method, urlPath, body, options) =>
				requestSandbox(sandbox, BACKLOG_KEY, method, urlPath, body, options);
			await backlogCall('POST', '/variants', { end_statuses: BACKLOG_STATUSES }, { control: true });
			await backlogCall(
				'POST',
				'/seed',
				{ agents: 1, calls: BACKLOG_CALLS, api_key: BACKLOG_KEY },
				{ control: true },
			);
			await backlogCall('POST', '/variants', {}, { control: true });
			const statuses = new Map();
			for (let cursor; ; ) {
				const page = await backlogCall(
					'GET',
					`/calls?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
				);
				for (const call of page.calls) statuses.set(call.id, call.status);
				if (!page.cursor) break;
				cursor = encodeURIComponent(page.cursor);
			}
			assert.equal(statuses.size, BACKLOG_CALLS);
			// Half of the first 1,200 GET /call answer 503 (the trigger's retries and later pass ride them out).
			await backlogCall(
				'POST',
				'/faults',
				{ match: 'GET /call', error_rate: 0.5, status: 503, times: 1_200 },
				{ control: true },
			);
			const started = Date.now();

			await server.rest.activateWorkflow(backlogWorkflowId);
			const runs = await waitForBacklog(BACKLOG_CALLS, 200_000);
			log(
				`backlog: ${runs.map((run) => run.calls.length).join(' + ')} calls in ${Date.now() - started} ms`,
			);
			await server.rest.deactivateWorkflow(backlogWorkflowId);
			await backlogCall('POST', '/faults', {}, { control: true });

			const emitted = runs.flatMap((run) => run.calls);
			assert.equal(emitted.length, BACKLOG_CALLS, 'every call once');
			assert.equal(new Set(emitted.map((call) => call.id)).size, BACKLOG_CALLS);
			assert.ok(runs.length >= 2, 'in batches of Max Calls per Poll');
			for (const run of runs) assert.ok(run.calls.length <= 1_100);
			for (const call of emitted) {
				assert.equal(call.status, statuses.get(call.id));
				assert.equal(call.dedupe_key, `${call.id}:call_ended`);
			}
			const unlisted = emitted.filter((call) => !['completed', 'failed'].includes(call.status));
			assert.ok(unlisted.length > 500, 'busy, no-answer and voicemail calls are output');
		});
	},
);
