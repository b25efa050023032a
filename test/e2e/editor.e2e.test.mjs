// The n8n editor in a real browser: Debian's Chromium driven by playwright-core (scripts/lib/browser.mjs)
// against the pinned real n8n with the packed package, as a user clicks: finding the nodes in the node
// panel, opening the Voice Agent node, picking an agent, testing the credential, and listening for a
// test event on a published workflow; what a builder sees first: the node panel's names and texts (the
// short action names, the Voice Agent entry that says it places real phone calls, the Call History
// Trigger by its whole name), an example's Call → Create at the node's current version (its Settings
// tab) and a tooltip of its options, every label of every node whole, each trigger's notice pointing to
// the other, and the first run of two examples from the obvious button (the export, the list's rows). Those three screenshots go to test/e2e/screenshots/docs/, and with UPDATE_DOC_IMAGES=1 to
// docs/images/ (JPEG: n8n-node build would copy a PNG into dist/, which is published), where the README
// and docs/voice-agent-node.md show them: a plain run leaves the tree as it was. One n8n start for the whole suite. When a check fails,
// a screenshot of the page goes to test/e2e/screenshots/ and the error names the file.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	canvasNode,
	closeNode,
	launchBrowser,
	logIn,
	openNode,
	openWorkflow,
	withFailureScreenshot,
} from '../../scripts/lib/browser.mjs';
import { ROOT } from '../../scripts/lib/community-package.mjs';
import { SANDBOX_API_KEY } from '../../scripts/lib/demo-sandbox.mjs';
import { importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { waitFor } from '../../scripts/lib/processes.mjs';
import { nodeOutput } from '../../scripts/lib/run-data.mjs';
import { EVERY_LABEL_NODES, everyLabelWorkflow, labelsOf } from './support/every-label.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { sandboxClient } from './support/sandbox-client.mjs';

const require = createRequire(import.meta.url);
const { startSandbox } = require('../../sandbox/index.js');

const SCREENSHOTS = path.join(ROOT, 'test', 'e2e', 'screenshots');
/** Where the README's screenshots of the editor go (docs/images/ only when asked), and how large each may be. */
const DOC_IMAGES =
	process.env.UPDATE_DOC_IMAGES === '1'
		? path.join(ROOT, 'docs', 'images')
		: path.join(SCREENSHOTS, 'docs');
const MAX_IMAGE_BYTES = 200 * 1024;
/** The example a newcomer opens first, and its Call → Create node. */
const LIST_EXAMPLE = 'call-a-list-of-leads';
const LIST_CALL_NODE = 'Call 5 at once, 10 a minute';
const LIST_ROWS_NODE = 'Outcome per lead';
const EXPORT_EXAMPLE = 'export-call-transcripts';
const OWNER = { email: 'browser@example.com', password: 'Br0wser-Passw0rd' };
const CREDENTIAL = { id: 'VoiceAgentBrowsr', name: 'Voice Agent (sandbox)' };
const TESTED_CREDENTIAL = { id: 'VoiceAgentTested', name: 'Voice Agent (connection test)' };
const SEARCH_TERMS = ['voice', 'voice agent', 'call', 'transcript', 'phone'];
const log = (line) => console.log(`[e2e:browser] ${line}`);

/** The package's nodes as n8n reads them from dist/ (built by npm run test:e2e). */
const PACKAGE = require('../../package.json');
const NODES = PACKAGE.n8n.nodes.map((file) => {
	const exported = require(path.join(ROOT, file));
	const NodeClass = Object.values(exported)[0];
	return new NodeClass().description;
});
const TRIGGERS = NODES.filter((node) => node.group.includes('trigger'));
const VOICE_AGENT = NODES.find((node) => node.name === 'voiceAgent');
/** The operations of a resource, in the order the node lists them. */
const operationsOf = (resource) =>
	VOICE_AGENT.properties.find(
		(property) =>
			property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
	).options;
const ACTIONS = ['agent', 'call'].flatMap((resource) =>
	operationsOf(resource).map((o) => o.action),
);
/** The action names a builder reads in the node panel, in n8n's own style. */
const SHORT_ACTIONS = [
	'Create or update an agent',
	'Delete an agent',
	'Get an agent',
	'Get many agents',
	'Create a real phone call',
	'Get a call',
	'Get many calls',
	'Set the context of a live call',
];
/** Call → Create's options, as the node describes them. */
const CREATE_OPTIONS = VOICE_AGENT.properties.find(
	(property) =>
		property.name === 'options' && property.displayOptions?.show?.operation?.includes('create'),
).options;
const wordsOf = (text) => text.split(/\s+/).filter(Boolean).length;
/** How the node panel lists each trigger: the Voice Agent Trigger merged with the node of its name. */
const panelNameOf = (trigger) =>
	trigger.name === 'voiceAgentTrigger' ? VOICE_AGENT.displayName : trigger.displayName;

let sandbox;
let userFolder;
let setup;
let server;
let browser;
let page;
const workflows = {};
let listenAgent;

/** The sandbox's API and control endpoints with the suite's key (set once the sandbox is up). */
let client;
const api = (method, urlPath, body) => client.call(method, urlPath, body);

const credentialOf = ({ id, name }) => ({ voiceAgentApi: { id, name } });

/** A check as a user clicks it, with a screenshot of the page when it fails. */
const step = (name, check) =>
	test(name, () => withFailureScreenshot(page, SCREENSHOTS, name, check));

before(async () => {
	browser = await launchBrowser({ log });
	page = browser.page;
	setup = await installedPackage();
	({ userFolder } = setup);

	sandbox = await startSandbox({ port: 0, apiKeys: [SANDBOX_API_KEY], agents: 0, calls: 0 });
	client = sandboxClient(sandbox, SANDBOX_API_KEY);
	// Four agents: the list example calls from the fourth, "Sales Follow-up". Two calls stay in progress
	// for a day: the export example must leave them out.
	await client.control('POST', '/seed', {
		agents: 4,
		calls: 3,
		live_calls: 2,
		call_duration_ms: 86_400_000,
	});
	const { agents } = await api('GET', '/agents?limit=100');
	listenAgent = agents[0];
	await importCredentials(
		userFolder,
		[CREDENTIAL, TESTED_CREDENTIAL].map((credential) =>
			voiceAgentCredential(credential, SANDBOX_API_KEY, sandbox.baseUrl),
		),
	);
	/** An example as shipped, its credential the suite's. */
	const example = (name) => {
		const workflow = JSON.parse(readFileSync(path.join(ROOT, 'examples', `${name}.json`), 'utf8'));
		for (const node of workflow.nodes)
			if (node.credentials?.voiceAgentApi) node.credentials = credentialOf(CREDENTIAL);
		return workflow;
	};
	[workflows.calls, workflows.listen, workflows.list, workflows.export, workflows.everyLabel] =
		await importWorkflows(userFolder, [
			{
				name: 'Browser: calls of an agent',
				nodes: [
					{
						name: 'Calls of an agent',
						type: 'n8n-nodes-voice-agent.voiceAgent',
						typeVersion: 1,
						position: [0, 0],
						parameters: { resource: 'call', operation: 'getMany' },
						credentials: credentialOf(CREDENTIAL),
					},
				],
			},
			{
				name: 'Browser: listen while published',
				nodes: [
					{
						name: 'When a call starts',
						type: 'n8n-nodes-voice-agent.voiceAgentTrigger',
						typeVersion: 1,
						position: [0, 0],
						webhookId: '7b0e6c2a-1f3d-4e5a-9b8c-0d1e2f3a4b5c',
						parameters: {
							agent: { __rl: true, mode: 'id', value: listenAgent.id },
							events: ['call_started'],
							options: {},
						},
						credentials: credentialOf(CREDENTIAL),
					},
				],
			},
			example(LIST_EXAMPLE),
			example(EXPORT_EXAMPLE),
			everyLabelWorkflow(PACKAGE.name),
		]);

	server = await startN8nServer(userFolder);
	log(`n8n started in ${server.startMs} ms at ${server.url}`);
	await server.setupOwnerAndLogin({ ...OWNER, firstName: 'Browser', lastName: 'User' });
	await logIn(page, server.url, OWNER);
});

after(async () => {
	await browser?.close();
	await server?.stop();
	await sandbox?.close();
	setup?.remove();
});

/** Saves what the page shows as <name>.jpg in DOC_IMAGES, for the README; small enough to keep in git. */
async function docImage(name) {
	mkdirSync(DOC_IMAGES, { recursive: true });
	const file = path.join(DOC_IMAGES, `${name}.jpg`);
	await page.mouse.move(0, 0);
	await page.screenshot({ path: file, type: 'jpeg', quality: 70 });
	const bytes = statSync(file).size;
	assert.ok(bytes <= MAX_IMAGE_BYTES, `${name}.jpg has ${bytes} bytes`);
	log(`${path.relative(ROOT, file)} (${Math.round(bytes / 1024)} KB)`);
}

/** Types a term into the node panel's search, as a user does. */
async function search(term) {
	await page.locator('[data-test-id="node-creator-search-bar"]').fill(term);
}

/**
 * A trigger node in the node panel's list, by the name the panel gives it (see panelNameOf); a name
 * followed by a badge (the community node mark) has a trailing space in its text.
 */
const panelItem = (trigger) =>
	page
		.locator('[data-test-id="node-creator-item-name"]:visible', {
			hasText: new RegExp(`^\\s*${panelNameOf(trigger)}\\s*$`),
		})
		.first();

/** Waits for a trigger in the node panel; when it does not show, the error lists what the panel shows. */
async function waitForPanelItem(trigger, term) {
	try {
		await panelItem(trigger).waitFor({ timeout: 15_000 });
	} catch (error) {
		const shown = await page
			.locator('[data-test-id="node-creator-item-name"]')
			.evaluateAll((names) =>
				names.map(
					(name) =>
						`${JSON.stringify(name.textContent)}${name.checkVisibility() ? '' : ' (hidden)'}`,
				),
			);
		throw new Error(
			`searching "${term}" does not show ${panelNameOf(trigger)}; the panel has: ${shown.join(', ')}`,
			{ cause: error },
		);
	}
}

describe('the n8n editor in a browser', { timeout: 600_000 }, () => {
	step(
		'the node panel finds the triggers and the actions by voice, voice agent, call, transcript and phone, by their whole names, and says the node places real phone calls',
		async () => {
			await openWorkflow(page, `${server.url}/workflow/new`);
			await page.locator('[data-test-id="canvas-add-button"]').click();
			for (const term of SEARCH_TERMS) {
				await search(term);
				for (const trigger of TRIGGERS) await waitForPanelItem(trigger, term);
			}
			await search('voice');
			const entries = (
				await page.locator('[data-test-id="node-creator-item-name"]:visible').allInnerTexts()
			).map((name) => name.trim());
			assert.ok(entries.includes('Voice Agent Call History Trigger'), entries.join(', '));
			assert.ok(!entries.includes('Voice Agent Call History'), entries.join(', '));
			await panelItem(TRIGGERS.find((trigger) => trigger.name === 'voiceAgentTrigger')).click();
			// The merged entry's details, before a workflow has a trigger: what the whole node does.
			await page.getByText('On call started', { exact: true }).waitFor();
			assert.match(
				await page.locator('[data-test-id="node-creator"]').innerText(),
				/Voice agents and their phone calls: place real phone calls/,
			);
			await page.getByText('On call started', { exact: true }).click();
			await page.locator('[data-test-id="ndv"]').waitFor();
			await closeNode(page);

			for (const term of SEARCH_TERMS) {
				await page.locator('[data-test-id="canvas-handle-plus"]').first().click();
				await search(term);
				await page
					.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Voice Agent$/ })
					.first()
					.click();
				const names = page.locator(
					'[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]',
				);
				await names.filter({ hasText: ACTIONS.at(-1) }).waitFor();
				const shown = (await names.allInnerTexts()).map((name) => name.trim());
				assert.deepEqual(
					ACTIONS.filter((action) => !shown.includes(action)),
					[],
					`searching "${term}" leads to every action of the Voice Agent node`,
				);
				if (term === SEARCH_TERMS[0]) {
					assert.deepEqual(ACTIONS, SHORT_ACTIONS);
					// The model's tool descriptions stay the model's.
					assert.deepEqual(
						shown.filter((name) => /without changing anything|allowed number/.test(name)),
						[],
					);
					await docImage('node-panel-voice-agent-actions');
				}
				await page.keyboard.press('Escape');
			}
		},
	);

	step(
		'the Voice Agent node shows its action as subtitle and opens with its operations',
		async () => {
			await openWorkflow(page, `${server.url}/workflow/${workflows.calls}`);
			const node = canvasNode(page, 'Calls of an agent');
			await node.getByText('Get many calls', { exact: true }).waitFor();
			assert.doesNotMatch(await node.innerText(), /getMany|: call/);

			await openNode(page, 'Calls of an agent');
			const resource = page.locator('[data-test-id="parameter-input-resource"] input');
			const operation = page.locator('[data-test-id="parameter-input-operation"] input');
			assert.equal(await resource.inputValue(), 'Call');
			assert.equal(await operation.inputValue(), 'Get Many');
			await page.locator('[data-test-id="parameter-input-operation"]').click();
			for (const option of operationsOf('call')) {
				await page
					.getByRole('option', { name: new RegExp(`^${option.name}\\b`) })
					.first()
					.waitFor();
			}
			await page.keyboard.press('Escape');
		},
	);

	step('the agent picker lists the agents of the sandbox and searches them', async () => {
		const { agents } = await api('GET', '/agents?limit=100');
		await page
			.locator('[data-test-id="resource-locator-agent"] [data-test-id="rlc-input"]')
			.click();
		const items = page.locator('[data-test-id="rlc-item"]');
		await items.first().waitFor();
		assert.deepEqual(
			await items.allInnerTexts(),
			agents.map((agent) => `${agent.name} (${agent.phone_number})`),
		);

		const [wanted] = agents.slice(-1);
		await page.locator('[data-test-id="rlc-search"]').fill(wanted.name.slice(0, 6).toLowerCase());
		await waitFor(async () => ((await items.count()) === 1 ? true : undefined), {
			timeoutMs: 10_000,
			onTimeout: () => new Error(`the search did not narrow the list to "${wanted.name}"`),
		});
		assert.deepEqual(await items.allInnerTexts(), [`${wanted.name} (${wanted.phone_number})`]);
		await items.first().click();
		await closeNode(page);
	});

	step(
		"an example's Call → Create: the node's current version, whole minutes, and a short tooltip",
		async () => {
			await openWorkflow(page, `${server.url}/workflow/${workflows.list}`);
			await openNode(page, LIST_CALL_NODE);
			const ndv = page.locator('[data-test-id="ndv"]');
			const maxWait = ndv.locator('[data-test-id="parameter-input-maxWaitMinutes"] input');
			assert.equal(await maxWait.inputValue(), '15');

			const option = CREATE_OPTIONS.find((field) => field.name === 'callsAtOnce');
			const label = ndv
				.locator('[data-test-id="input-label"]')
				.filter({ has: page.getByText(option.displayName, { exact: true }) })
				.first();
			await label.waitFor({ timeout: 10_000 }).catch(async (error) => {
				const labels = await ndv.locator('[data-test-id="input-label"]').allInnerTexts();
				throw new Error(`no label "${option.displayName}" among ${JSON.stringify(labels)}`, {
					cause: error,
				});
			});
			await label.scrollIntoViewIfNeeded();
			await label.hover();
			await label.locator('[class*="infoIcon"]').first().hover();
			// n8n 2.x draws tooltips with Reka UI (class n8n-tooltip), 1.x with Element Plus (el-popper).
			const tooltip = page
				.locator('.n8n-tooltip, .el-popper', { hasText: option.description.slice(0, 40) })
				.filter({ visible: true })
				.first();
			await tooltip.waitFor({ timeout: 10_000 }).catch(async (error) => {
				throw new Error(`no tooltip; the label: ${await label.innerHTML()}`, { cause: error });
			});
			const shown = (await tooltip.innerText()).replace(/\s+/g, ' ').trim();
			assert.equal(shown, option.description.replace(/\s+/g, ' '));
			assert.ok(wordsOf(shown) <= 60, `the tooltip has ${wordsOf(shown)} words`);
			for (const field of CREATE_OPTIONS)
				assert.ok(wordsOf(field.description ?? '') <= 60, `${field.displayName} is short`);
			await page.screenshot({
				path: path.join(DOC_IMAGES, 'call-create-options-tooltip.jpg'),
				type: 'jpeg',
				quality: 70,
			});
			assert.ok(
				statSync(path.join(DOC_IMAGES, 'call-create-options-tooltip.jpg')).size <= MAX_IMAGE_BYTES,
			);

			await ndv.locator('[data-test-id="tab-settings"]').click();
			const version = ndv.getByText(
				`${VOICE_AGENT.displayName} node version ${VOICE_AGENT.defaultVersion}`,
			);
			await version.waitFor();
			assert.match(
				(await version.locator('..').innerText()).replace(/\s+/g, ' '),
				new RegExp(`node version ${VOICE_AGENT.defaultVersion} \\(Latest\\)`),
			);
			await docImage('example-call-create-settings');
			await closeNode(page);
		},
	);

	step(
		"every label of every node is whole, and each trigger's notice points to the other trigger",
		async () => {
			await openWorkflow(page, `${server.url}/workflow/${workflows.everyLabel}`);
			const shown = new Set();
			const cut = [];
			const notices = {};
			for (const name of EVERY_LABEL_NODES) {
				await openNode(page, name);
				const ndv = page.locator('[data-test-id="ndv"]');
				// A label is cut when an element of it holds more text than it shows (the editor's "…"). The
				// panel draws nested fields a moment later: read until two reads agree.
				const readLabels = () =>
					ndv.locator('[data-test-id="input-label"]').evaluateAll((elements) =>
						elements.map((element) => {
							const label = element.querySelector('label') ?? element;
							const overflowing = [label, ...label.querySelectorAll('*')].filter(
								(part) =>
									part.scrollWidth > part.clientWidth + 1 &&
									getComputedStyle(part).overflow !== 'visible',
							);
							return {
								text: label.innerText.split('\n')[0].replace(/\*$/, '').trim(),
								widths: overflowing.map((part) => `${part.scrollWidth} px in ${part.clientWidth}`),
							};
						}),
					);
				let labels = await readLabels();
				for (let read = 0; read < 20; read++) {
					await page.waitForTimeout(300);
					const again = await readLabels();
					if (JSON.stringify(again) === JSON.stringify(labels)) break;
					labels = again;
				}
				for (const { text, widths } of labels) {
					shown.add(text);
					if (widths.length > 0) cut.push(`${name} → ${text} (${widths.join(', ')})`);
				}
				if (/Trigger/.test(name)) notices[name] = (await ndv.innerText()).replace(/\s+/g, ' ');
				await closeNode(page);
			}
			assert.deepEqual(cut, [], 'labels the editor cuts short');
			for (const node of NODES) {
				const unseen = [...labelsOf(node)].filter((label) => !shown.has(label));
				assert.deepEqual(unseen, [], `labels of ${node.displayName} the suite did not open`);
			}
			assert.match(
				notices['Voice Agent Trigger, every option'],
				/For a scheduled export or report of calls, use the Voice Agent Call History Trigger/,
			);
			assert.match(
				notices['Call History Trigger, every option'],
				/To act the moment a call ends, or to answer an agent's tool call, use the Voice Agent Trigger/,
			);
		},
	);

	step(
		"the export example's first run: Execute workflow exports every call that ended, and only those",
		async () => {
			const { calls } = await api('GET', '/calls?limit=100');
			const ended = calls.filter((call) => call.status !== 'in_progress');
			assert.ok(ended.length > 0 && ended.length < calls.length, 'calls ended and in progress');

			await openWorkflow(page, `${server.url}/workflow/${workflows.export}`);
			const button = page.locator('[data-test-id="execute-workflow-button"]');
			// One trigger: the obvious button runs it, nothing to choose first.
			assert.equal((await button.innerText()).replace(/\s+/g, ' ').trim(), 'Execute workflow');
			await button.click();
			const [run] = await server.rest.waitForExecutions(workflows.export, { timeoutMs: 60_000 });
			assert.equal(run.status, 'success', JSON.stringify(run.data?.resultData?.error ?? {}));

			const rows = nodeOutput(run, 'One row per call');
			assert.deepEqual(
				rows.map((row) => row.call_id).sort(),
				ended.map((call) => call.id).sort(),
				'one row per call that ended',
			);
			for (const row of rows) {
				assert.notEqual(row.status, 'in_progress');
				assert.ok(row.ended, `${row.call_id} has its end time`);
				if (row.status === 'completed') assert.ok(row.transcript, `${row.call_id}'s transcript`);
			}
			assert.equal(nodeOutput(run, 'Transcripts as CSV').length, 1);
			// What the builder sees: the rows going into the CSV.
			await page
				.locator('[data-test-id="edge-label"]', {
					hasText: new RegExp(`^\\s*${rows.length} items\\s*$`),
				})
				.first()
				.waitFor();
		},
	);

	step(
		"the list example's first run from the obvious button: one outcome row per lead, and a deferred lead says why, never null or undefined",
		async () => {
			await openWorkflow(page, `${server.url}/workflow/${workflows.list}`);
			await page.locator('[data-test-id="execute-workflow-button"]').click();
			// Inside its Calling Hours (weekdays 09:00–20:00 in Los Angeles) the calls take about 1½ minutes.
			const [run] = await server.rest.waitForExecutions(workflows.list, { timeoutMs: 300_000 });
			assert.equal(run.status, 'success', JSON.stringify(run.data?.resultData?.error ?? {}));
			const rows = nodeOutput(run, LIST_ROWS_NODE);
			assert.equal(rows.length, 12);
			const outcomes = {};
			for (const row of rows) {
				outcomes[row.outcome] = (outcomes[row.outcome] ?? 0) + 1;
				assert.deepEqual(
					Object.entries(row).filter(([, value]) => value === null || value === undefined),
					[],
					`${row.lead}'s row`,
				);
				if (row.outcome === 'deferred') {
					assert.match(row.reason, /was not called: it is outside Calling Hours/);
					assert.ok(Date.parse(row.next_call_at) > Date.now(), `${row.lead}: next_call_at`);
				} else {
					assert.equal(row.outcome, 'ended', `${row.lead}: ${row.reason}`);
					assert.ok(row.call_id && row.status, `${row.lead}: the call`);
				}
			}
			log(`the list example: ${JSON.stringify(outcomes)}`);

			// The table the builder reads: the reason shows, no cell says null or undefined.
			await openNode(page, LIST_ROWS_NODE);
			const output = page.locator('[data-test-id="output-panel"]');
			const table = output.locator('table').first();
			await table.waitFor();
			const header = (await table.locator('thead th').allInnerTexts()).map((text) => text.trim());
			assert.ok(header.includes('reason'), header.join(', '));
			const cells = await table
				.locator('tbody tr')
				.evaluateAll((trs) =>
					trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())),
				);
			assert.ok(cells.length > 0);
			for (const row of cells) {
				assert.deepEqual(
					row.filter((cell) => cell === 'null' || cell === 'undefined'),
					[],
				);
				const reason = row[header.indexOf('reason')];
				if (row[header.indexOf('outcome')] === 'deferred') assert.match(reason, /was not called/);
			}
			await closeNode(page);
		},
	);

	step(
		'Test connection succeeds for the sandbox, and fails clearly for a wrong key and for an address that is not the API',
		async () => {
			await page.goto(`${server.url}/home/credentials/${TESTED_CREDENTIAL.id}`);
			const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
			const success = dialog.locator('[data-test-id="credentials-config-container-test-success"]');
			await success.waitFor();

			/** Saves the credential with these fields; n8n tests it and shows the result's message. */
			async function saveAndTest(fields) {
				// The dialog re-renders after each test's banner; a value typed meanwhile can be lost, and
				// an unchanged credential is neither saved nor tested. So each value is typed until it holds.
				for (const [field, value] of Object.entries(fields)) {
					const input = dialog.locator(`[data-test-id="parameter-input-${field}"] input`);
					await waitFor(
						async () => {
							if ((await input.inputValue()) !== value) await input.fill(value);
							return (await input.inputValue()) === value ? true : undefined;
						},
						{
							timeoutMs: 10_000,
							onTimeout: () => new Error(`the ${field} field did not keep the value typed`),
						},
					);
				}
				// A click that lands while the dialog re-renders after the last banner does nothing (the button
				// still says Save, nothing is sent): click again until n8n tests the credential, three times at most.
				let testResponse;
				for (let click = 1; !testResponse; click++) {
					const tested = page.waitForResponse(
						(response) => response.url().endsWith('/rest/credentials/test'),
						{ timeout: 10_000 },
					);
					await page.locator('[data-test-id="credential-save-button"]').click();
					try {
						testResponse = await tested;
					} catch (error) {
						if (click === 3) throw error;
					}
				}
				// The banner that follows n8n's answer is the one to read, not the one still shown from before.
				const { data } = await testResponse.json();
				if (data.status === 'OK') {
					await success.waitFor();
					return 'OK';
				}
				const failure = dialog.locator('.el-tag', { hasText: 'connect with these settings' });
				await failure.waitFor();
				// n8n puts the test's message behind "More details" in this banner.
				const more = failure.getByText('More details');
				if (await more.count()) await more.click();
				return await waitFor(
					async () => {
						const text = (await failure.innerText()).replace(/\s+/g, ' ').trim();
						return text.includes(data.message) ? text : undefined;
					},
					{
						timeoutMs: 5_000,
						onTimeout: () =>
							new Error(`the banner did not show the test's message: ${data.message}`),
					},
				);
			}

			const wrongKey = await saveAndTest({ apiKey: 'not-the-key' });
			assert.match(wrongKey, /The Voice Agent API rejected the API key \(401 Unauthorized\)/);
			assert.doesNotMatch(wrongKey, /not-the-key/);
			const notTheApi = await saveAndTest({ apiKey: SANDBOX_API_KEY, baseUrl: server.url });
			assert.match(
				notTheApi,
				new RegExp(
					`${server.url} does not answer like the Voice Agent API \\(GET /agents answered`,
				),
			);
			assert.equal(await saveAndTest({ baseUrl: `${sandbox.baseUrl}/` }), 'OK');
		},
	);

	step(
		'a trigger on a published workflow listens for a test event, receives one, and gives the agent back to the production URL',
		async () => {
			await server.rest.activateWorkflow(workflows.listen);
			const agentWebhook = async () => (await api('GET', `/agent?id=${listenAgent.id}`)).webhook;
			const production = await agentWebhook();
			assert.match(production, new RegExp(`^${server.url}/webhook/.+\\?token=`));

			await openWorkflow(page, `${server.url}/workflow/${workflows.listen}`);
			await openNode(page, 'When a call starts');
			await page.locator('[data-test-id="ndv"] [data-test-id="trigger-execute-button"]').click();
			await waitFor(
				async () => ((await agentWebhook()).includes('/webhook-test/') ? true : undefined),
				{
					timeoutMs: 20_000,
					onTimeout: () => new Error('listening did not point the agent at the test URL'),
				},
			);

			const call = await api('POST', '/call', {
				from: listenAgent.phone_number,
				to: '+14155550142',
				context: 'Browser test event',
			});
			const output = page.locator('[data-test-id="output-panel"]');
			await output.getByText(call.id).first().waitFor({ timeout: 30_000 });
			await output.getByText('call_started').first().waitFor();
			await waitFor(async () => ((await agentWebhook()) === production ? true : undefined), {
				timeoutMs: 20_000,
				onTimeout: () =>
					new Error('after the test event the agent did not get its production URL back'),
			});
			assert.equal(await page.locator('.el-notification--error:visible').count(), 0);
		},
	);
});
