// End-to-end: the campaign example (examples/call-leads-within-hours.json) in the pinned real n8n with the
// packed package, against the sandbox. Its leads live in an n8n Data Table made through n8n's REST API,
// as a user makes one in the editor; the workflow runs in a real `n8n start` (the Data Table module does
// not load in `n8n execute`), each run started from its *Run now* trigger as one scheduled pass.
//
// The clock is the real one: the leads' numbers are chosen at the time of the run from prefixes of a
// single time zone, so that some are inside the window in their own zone and some outside (computed
// here with Intl, independently of the node). An Australian mobile lead may be anywhere in Australia: it
// is deferred while Perth is outside the window though Sydney (the zone libphonenumber's prefix map gives
// +61 4) is inside. What the test sets in the example, and why:
// - the Data Table in both Data Table nodes (a user picks it after importing) and the credential's URL;
// - Calling Hours → Days: every day, so the result does not depend on the weekday of the run;
// - Calling Hours → Hours: 8 hours from 30 minutes before Sydney's clock at the start of the run (09:00–20:00
//   in the example), so that the real clock is inside in Sydney and outside in Perth, whenever the test runs;
// - Call Again → Minutes Apart: 0, so each pass is the failing lead's next attempt (60 in the example).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT as root } from '../../scripts/lib/community-package.mjs';
import { LEADS_TABLE, dataTableLocator } from '../../scripts/lib/demo-setup.mjs';
import { importCredentials } from '../../scripts/lib/n8n-cli.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import {
	insideDailyWindow,
	nextCommonWindowStart,
	nextDailyWindowStart,
	splitByWindow,
	wallClock,
	zonesInMap,
} from '../../scripts/lib/lead-zones.mjs';
import { selectRuntime } from '../../scripts/lib/runtime-pins.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient, startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-leads-key';
const CREDENTIAL = { id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' };
const N8N_VERSION = selectRuntime().n8n;
/** The window of the run: 8 hours from 30 minutes before Sydney's clock (minutes after local midnight). */
function windowAt(now) {
	const sydney = wallClock('Australia/Sydney', now).minutes;
	return { from: (sydney - 30 + 1440) % 1440, until: (sydney + 450) % 1440 };
}
const clockOf = (minutes) =>
	`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const ALL_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NODES = {
	leads: 'Leads not done yet',
	call: 'Call within calling hours',
	write: 'Write the outcome to the lead',
};
/** libphonenumber's prefix-to-time-zone map as vendored in the repository. */
const MAP_DATA = path.join(root, 'scripts', 'data', 'libphonenumber', 'timezones-map_data.txt');
/** libphonenumber's number metadata as vendored in the repository (its mobile ranges per country). */
const METADATA = path.join(root, 'scripts', 'data', 'libphonenumber', 'PhoneNumberMetadata.xml');
const AUSTRALIAN_MOBILE = '+61412552501';
const log = (line) => console.log(`[e2e call-leads-within-hours] ${line}`);

let setup;
let sandbox;
let api;
let server;

const example = () =>
	JSON.parse(readFileSync(path.join(root, 'examples', 'call-leads-within-hours.json'), 'utf8'));
const nodeOf = (workflow, name) => workflow.nodes.find((node) => node.name === name);

/** The example as imported, with only what the test must set (see the top of this file). */
function campaignWorkflow(table, window) {
	const workflow = example();
	for (const name of [NODES.leads, NODES.write]) {
		nodeOf(workflow, name).parameters.dataTableId = dataTableLocator(table);
	}
	const { options } = nodeOf(workflow, NODES.call).parameters;
	options.callingHours.hours.days = ALL_DAYS;
	options.callingHours.hours.from = clockOf(window.from);
	options.callingHours.hours.until = clockOf(window.until);
	options.callAgain.settings.minutesBetween = 0;
	const { name, nodes, connections, settings } = workflow;
	// As the editor saves an imported workflow (n8n 1.x requires `active`).
	return { name, nodes, connections, settings, active: false };
}

/**
 * Leads whose numbers are, at `now`, inside their window (one of them ends in 0000: the sandbox fails
 * its calls) and outside it, among the countries the example's Allowed Destinations allow. Two inside
 * leads were deferred by an earlier pass (`row`): one to an hour ago, due now; one to tomorrow, not due.
 */
function leadsAt(now, window) {
	const allowed = nodeOf(example(), NODES.call)
		.parameters.options.allowedDestinations.split(',')
		.map((entry) => entry.trim().replace(/^\+/, ''));
	const allowedOnly = (entries) =>
		entries.filter(({ prefix }) => allowed.some((country) => prefix.startsWith(country)));
	const split = splitByWindow(now, { ...window, marginMinutes: 30 });
	const inside = allowedOnly(split.inside);
	const outside = allowedOnly(split.outside);
	assert.ok(inside.length >= 1 && outside.length >= 1, 'the pool has leads on both sides now');
	const lead = ({ prefix, zone }, tail, where, note = tail === '0000' ? ' (fails)' : '') => ({
		name: `${where} ${zone}${note}`,
		phone: `+${prefix}555${tail}`,
		zone,
		inside: where === 'inside',
	});
	const deferredTo = (ms) => ({
		outcome: 'deferred',
		attempt: 1,
		next_call_at: new Date(ms).toISOString(),
	});
	const leads = [
		...inside.map((entry, index) => lead(entry, String(1001 + index), 'inside')),
		lead(inside[0], '0000', 'inside'),
		{
			...lead(inside[0], '3001', 'inside', ' (deferred to an hour ago)'),
			row: deferredTo(now - 3_600_000),
		},
		{
			...lead(inside[0], '3002', 'inside', ' (deferred to tomorrow)'),
			row: deferredTo(now + 86_400_000),
			notDue: true,
		},
		...outside.map((entry, index) => lead(entry, String(2001 + index), 'outside')),
	];
	// The premise: each number has exactly its one zone in the data the package is built from.
	const map = readFileSync(MAP_DATA, 'utf8');
	for (const { phone, zone } of leads) assert.deepEqual(zonesInMap(phone, map), [zone], phone);
	return [...leads, australianMobileLead(now, window, map)];
}

/**
 * The Australian mobile, with the premise read from the vendored data: the prefix map gives its range
 * Sydney only; the number metadata says it is a mobile (AU's mobile pattern); Australia's zones are those
 * the map gives +61; and now the window is open in Sydney and closed in Perth.
 */
function australianMobileLead(now, window, map) {
	assert.deepEqual(zonesInMap(AUSTRALIAN_MOBILE, map), ['Australia/Sydney']);
	const metadata = readFileSync(METADATA, 'utf8').replace(/<!--[\s\S]*?-->/g, '');
	const australia = /<territory id="AU"[\s\S]*?<\/territory>/.exec(metadata)[0];
	const mobile = /<mobile>[\s\S]*?<nationalNumberPattern>([\s\S]*?)<\/nationalNumberPattern>/
		.exec(australia)[1]
		.replace(/\s+/g, '');
	assert.match(AUSTRALIAN_MOBILE.slice(3), new RegExp(`^(?:${mobile})$`), 'an Australian mobile');
	const countryZones = /^61\|(.+)$/m.exec(map)[1].split('&');
	assert.ok(
		countryZones.includes('Australia/Perth') && countryZones.length > 2,
		'Australia spans zones',
	);
	assert.ok(insideDailyWindow('Australia/Sydney', now, window), 'open in Sydney now');
	assert.ok(!insideDailyWindow('Australia/Perth', now, window), 'closed in Perth now');
	// The node names the prefix's own zone first, then the rest of the country's.
	const zones = ['Australia/Sydney', ...countryZones.filter((zone) => zone !== 'Australia/Sydney')];
	return {
		name: 'outside Australian mobile (anywhere in Australia: Perth is closed)',
		phone: AUSTRALIAN_MOBILE,
		zone: 'Australia/Sydney',
		inside: false,
		nextCallAt: nextCommonWindowStart(zones, now, window)?.iso ?? assert.fail('no common window'),
	};
}

/** Every call the sandbox's account placed, paged as the API pages. */
async function allCalls() {
	const calls = [];
	let cursor = '';
	do {
		const page = await api.call('GET', `/calls?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
		calls.push(...page.calls);
		cursor = page.cursor ? encodeURIComponent(page.cursor) : '';
	} while (cursor);
	return calls;
}

/** A row's own columns (the table's, without n8n's `createdAt`/`updatedAt`), as the editor lists them. */
const columnsOf = (row) =>
	Object.fromEntries(
		['id', ...LEADS_TABLE.columns.map(({ name }) => name)].map((name) => [name, row[name]]),
	);

const callsTo = (calls, phone) =>
	calls
		.filter((call) => call.client_number === phone)
		.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));

/** The items a node output in a run; none when the run stopped before it (nothing was due). */
function output(execution, node) {
	const runs = execution.data.resultData.runData[node];
	if (!runs) return [];
	assert.equal(runs[0].error, undefined, `${node} failed: ${runs[0].error?.message}`);
	return (runs[0].data?.main?.[0] ?? []).map((item) => item.json);
}

before(async () => {
	setup = await installedPackage();
	sandbox = await startEmptySandbox(API_KEY, { callDurationMs: 1500 });
	api = sandboxClient(sandbox, API_KEY);
	await api.call('POST', '/agent', { name: 'Sales Follow-up', area_code: '415' });
	await importCredentials(setup.userFolder, [
		voiceAgentCredential(CREDENTIAL, API_KEY, sandbox.baseUrl),
	]);
	server = await startN8nServer(setup.userFolder);
	await server.setupOwnerAndLogin();
});

after(async () => {
	await server?.stop();
	await sandbox?.close();
	setup?.remove();
});

describe(
	`Example "call leads within their calling hours" in n8n ${N8N_VERSION}`,
	{ timeout: 600_000 },
	() => {
		test('passes over a Data Table: inside leads called once, outside ones deferred to their window, a failing number tried 3 times, each outcome written once', async () => {
			const { id: projectId } = await server.rest.personalProject();
			const table = await server.rest.createDataTable(projectId, LEADS_TABLE);
			const now = Date.now();
			const window = windowAt(now);
			const leads = leadsAt(now, window);
			const failing = leads.find((lead) => lead.phone.endsWith('0000'));
			log(
				`at ${new Date(now).toISOString()}, window ${clockOf(window.from)}–${clockOf(window.until)}: ${leads.map((l) => `${l.phone} ${l.name}`).join('; ')}`,
			);
			const inserted = await server.rest.insertDataTableRows(
				projectId,
				table.id,
				leads.map(({ name, phone, row }) => ({ name, phone, ...row })),
			);
			const rowIdOf = new Map(inserted.map((row) => [row.phone, row.id]));
			const insertedRow = new Map(inserted.map((row) => [row.phone, row]));
			const workflow = await server.rest.request(
				'POST',
				'/rest/workflows',
				campaignWorkflow(table, window),
			);

			const rows = async () =>
				new Map(
					(await server.rest.dataTableRows(projectId, table.id)).map((row) => [row.phone, row]),
				);
			/** One pass, as the schedule runs it: the row ids it wrote, and the calls placed so far. */
			const pass = async (label) => {
				const started = Date.now();
				const executionId = await server.rest.runManually(workflow.id, 'Run now');
				const execution = await server.rest.waitForExecution(executionId, { timeoutMs: 300_000 });
				log(`${label}: ${Date.now() - started} ms (execution ${executionId}, ${execution.status})`);
				assert.equal(execution.status, 'success', execution.data.resultData.error?.message);
				const written = output(execution, NODES.write).map((row) => row.id);
				assert.equal(new Set(written).size, written.length, `${label}: a row written twice`);
				return { written: written.sort((a, b) => a - b), calls: await allCalls() };
			};
			const idsOf = (list) => list.map((lead) => rowIdOf.get(lead.phone)).sort((a, b) => a - b);

			// Pass 1: every lead but the one deferred to tomorrow is due. Inside: called, ended; the failing one
			// has 2 attempts left; outside: deferred to the start of its next window, never dialled.
			const first = await pass('pass 1');
			const due = leads.filter((lead) => !lead.notDue);
			assert.deepEqual(first.written, idsOf(due), 'pass 1 wrote each due lead once');
			const table1 = await rows();
			for (const lead of leads) {
				const row = table1.get(lead.phone);
				const calls = callsTo(first.calls, lead.phone);
				if (lead.notDue) {
					assert.equal(calls.length, 0, `${lead.name}: not due, not dialled`);
					assert.deepEqual(
						columnsOf(row),
						columnsOf(insertedRow.get(lead.phone)),
						`${lead.name}: row untouched`,
					);
					continue;
				}
				if (!lead.inside) {
					assert.equal(calls.length, 0, `${lead.name} was not dialled`);
					assert.deepEqual(
						{ outcome: row.outcome, attempt: row.attempt, next_call_at: row.next_call_at },
						{
							outcome: 'deferred',
							attempt: 1,
							next_call_at: lead.nextCallAt ?? nextDailyWindowStart(lead.zone, now, window).iso,
						},
						`${lead.name}: deferred to its next window`,
					);
					assert.equal(row.call_id, null, `${lead.name}: no call`);
					continue;
				}
				assert.equal(calls.length, 1, `${lead.name} was called once`);
				if (lead === failing) {
					assert.equal(row.outcome, 'retry_due');
					assert.equal(row.attempt, 2, 'the next attempt is the second');
					assert.equal(row.status, 'failed');
					assert.ok(Date.parse(row.next_call_at) <= Date.now(), `due again: ${row.next_call_at}`);
				} else {
					assert.deepEqual(
						{
							outcome: row.outcome,
							attempt: row.attempt,
							status: row.status,
							next_call_at: row.next_call_at,
						},
						{ outcome: 'ended', attempt: 1, status: 'completed', next_call_at: '' },
						lead.name,
					);
				}
				assert.equal(row.call_id, calls[0].id, `${lead.name}: the call's id`);
			}

			// Passes 2 and 3: only the failing lead is due; its second and third attempts, with n8n restarted
			// between them: the campaign's state is the table's.
			const second = await pass('pass 2');
			assert.deepEqual(second.written, idsOf([failing]));
			let row = (await rows()).get(failing.phone);
			let calls = callsTo(second.calls, failing.phone);
			assert.equal(calls.length, 2);
			assert.deepEqual(
				{ outcome: row.outcome, attempt: row.attempt, status: row.status, call_id: row.call_id },
				{ outcome: 'retry_due', attempt: 3, status: 'failed', call_id: calls[1].id },
			);

			await server.stop();
			server = await startN8nServer(setup.userFolder);
			await server.setupOwnerAndLogin();
			log('n8n restarted');

			const third = await pass('pass 3');
			assert.deepEqual(third.written, idsOf([failing]));
			const table3 = await rows();
			row = table3.get(failing.phone);
			calls = callsTo(third.calls, failing.phone);
			assert.equal(calls.length, 3, 'three attempts, no more');
			assert.deepEqual(
				{
					outcome: row.outcome,
					attempt: row.attempt,
					status: row.status,
					call_id: row.call_id,
					next_call_at: row.next_call_at,
				},
				{ outcome: 'ended', attempt: 3, status: 'failed', call_id: calls[2].id, next_call_at: '' },
				'given up after the third attempt',
			);
			for (const lead of leads.filter((other) => other !== failing)) {
				assert.deepEqual(
					table3.get(lead.phone),
					table1.get(lead.phone),
					`${lead.name}: written once`,
				);
			}

			// Pass 4: nothing is due (ended, or deferred to a later window): no call, no row written.
			const fourth = await pass('pass 4');
			assert.deepEqual(fourth.written, []);
			assert.deepEqual(await rows(), table3, 'the table is as the third pass left it');
			assert.equal(fourth.calls.length, third.calls.length, 'no call in pass 4');

			// Over all passes: no number phoned twice but the failing one, exactly three times.
			for (const lead of leads) {
				const expected = lead === failing ? 3 : lead.inside && !lead.notDue ? 1 : 0;
				assert.equal(callsTo(fourth.calls, lead.phone).length, expected, lead.name);
			}
			assert.equal(fourth.calls.length, due.filter((lead) => lead.inside).length + 2);

			// The example as a user runs it: published, its Schedule Trigger takes over (and is taken off again).
			await server.rest.activateWorkflow(workflow.id);
			await server.rest.deactivateWorkflow(workflow.id);
		});
	},
);
