// End-to-end: the example "call a list of leads" (examples/call-a-list-of-leads.json), in the pinned real
// n8n with the packed package, against the demo's seeded sandbox: twelve leads called five at once and at
// most ten a minute, each outcome on its own lead's row, in the leads' order.
// The clock is the real one. The example calls on weekdays 09:00–20:00 in each number's own time zone
// (its leads are all +1 415: Los Angeles); what the tests set in it, and why:
// - to call every lead whenever the test runs, what the example's sticky note tells a builder: Calling
//   Hours → Days every day, Hours From 00:00, Hours Until 24:00;
// - to see every lead deferred, a window that closed an hour ago.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT as root } from '../../scripts/lib/community-package.mjs';
import { executeWorkflow, importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { SANDBOX_API_KEY, startSeededSandbox } from '../../scripts/lib/demo-sandbox.mjs';
import { wallClock } from '../../scripts/lib/lead-zones.mjs';
import { nodeOutput } from '../../scripts/lib/run-data.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { requestSandbox } from '../../scripts/lib/sandbox-client.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';

const CREDENTIAL = { id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' };
const N8N_VERSION = selectRuntime().n8n;
const log = (line) => console.log(`[e2e call-a-list] ${line}`);
const CALL_NODE = 'Call 5 at once, 10 a minute';
const ALL_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const clockOf = (minutes) =>
	`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

let sandbox;
let userFolder;
let setup;

const control = (method, urlPath) =>
	requestSandbox(sandbox, SANDBOX_API_KEY, method, urlPath, undefined, { control: true });

before(async () => {
	setup = await installedPackage();
	({ userFolder } = setup);
	({ sandbox } = await startSeededSandbox({ port: 0 }));
	await importCredentials(userFolder, [
		voiceAgentCredential(CREDENTIAL, SANDBOX_API_KEY, sandbox.baseUrl),
	]);
});

after(async () => {
	await sandbox?.close();
	setup?.remove();
});

describe(`Example "call a list of leads" in n8n ${N8N_VERSION}`, { timeout: 600_000 }, () => {
	test('every lead called once, 5 at once, 10 a minute, each outcome on its own row in order', async () => {
		const example = JSON.parse(
			readFileSync(path.join(root, 'examples', 'call-a-list-of-leads.json'), 'utf8'),
		);
		const leads = JSON.parse(
			example.nodes.find((node) => node.name === 'Renewals due (from the CRM)').parameters
				.assignments.assignments[0].value,
		);
		const call = example.nodes.find((node) => node.name === CALL_NODE);
		assert.equal(call.parameters.options.callingHours.hours.timeZone, 'number');
		const sticky = example.nodes.find((node) => node.name === 'About this workflow');
		assert.match(
			sticky.parameters.content,
			/To place the calls now.*every day under \*Days\*, \*Hours From\* 00:00 and \*Hours Until\* 24:00/,
		);
		Object.assign(call.parameters.options.callingHours.hours, {
			days: ALL_DAYS,
			from: '00:00',
			until: '24:00',
		});
		await control('DELETE', '/call-load');
		// The demo's sandbox has live calls of its own (a day long): the example's come on top of them.
		const { in_progress: before } = (await control('GET', '/call-load')).accounts[0];
		const [id] = await importWorkflows(userFolder, [example]);
		const started = Date.now();
		const run = await executeWorkflow(userFolder, id);
		log(`the example ran in ${Date.now() - started} ms`);
		assert.equal(run.data.resultData.error, undefined, run.data.resultData.error?.message);

		const rows = nodeOutput(run, 'Outcome per lead');
		assert.deepEqual(
			rows.map((row) => [row.lead, row.phone]),
			leads.map((lead) => [lead.name, lead.phone]),
		);
		const calls = nodeOutput(run, CALL_NODE);
		assert.deepEqual(
			calls.map((call) => call.to),
			leads.map((lead) => lead.phone),
		);
		assert.equal(new Set(rows.map((row) => row.call_id)).size, leads.length);
		for (const row of rows) {
			assert.equal(row.ended, true, `${row.lead}'s call ended`);
			assert.equal(row.outcome, 'ended', `${row.lead}'s outcome`);
			// Every column has a value a CRM takes: a call that ended has no reason and no next call.
			assert.deepEqual(
				Object.entries(row).filter(([, value]) => value === null || value === undefined),
				[],
			);
			assert.equal(row.reason, '');
			assert.equal(row.next_call_at, '');
			// The sandbox's calls to a number ending in 0000 fail, as an unanswered call would.
			assert.equal(row.status, row.phone.endsWith('0000') ? 'failed' : 'completed');
			assert.ok(Date.parse(row.end_seen_at) > Date.parse(row.placed_at), `${row.lead}: times`);
		}
		const load = (await control('GET', '/call-load')).accounts[0];
		assert.equal(load.calls_created, leads.length);
		assert.equal(load.max_in_progress - before, 5);
		assert.ok(load.max_created_in_60s <= 10, `${load.max_created_in_60s} calls in 60 s`);
	});

	test('outside its Calling Hours: every lead deferred, its row saying why and when, nobody called', async () => {
		const example = JSON.parse(
			readFileSync(path.join(root, 'examples', 'call-a-list-of-leads.json'), 'utf8'),
		);
		const call = example.nodes.find((node) => node.name === CALL_NODE);
		// A window from two hours ago to an hour ago in Los Angeles, every day: closed now.
		const losAngeles = wallClock('America/Los_Angeles', Date.now()).minutes;
		Object.assign(call.parameters.options.callingHours.hours, {
			days: ALL_DAYS,
			from: clockOf((losAngeles - 120 + 1440) % 1440),
			until: clockOf((losAngeles - 60 + 1440) % 1440),
		});
		await control('DELETE', '/call-load');
		const [id] = await importWorkflows(userFolder, [example]);
		const run = await executeWorkflow(userFolder, id);
		assert.equal(run.data.resultData.error, undefined, run.data.resultData.error?.message);

		const rows = nodeOutput(run, 'Outcome per lead');
		assert.equal(rows.length, 12);
		for (const row of rows) {
			assert.equal(row.outcome, 'deferred', row.lead);
			assert.match(
				row.reason,
				new RegExp(`^\\${row.phone} was not called: it is outside Calling Hours`),
			);
			assert.ok(Date.parse(row.next_call_at) > Date.now(), `${row.lead}: ${row.next_call_at}`);
			assert.deepEqual(
				Object.entries(row).filter(([, value]) => value === null || value === undefined),
				[],
			);
		}
		assert.equal((await control('GET', '/call-load')).accounts[0].calls_created, 0);
	});
});
