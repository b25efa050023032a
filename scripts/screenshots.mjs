#!/usr/bin/env node
// npm run screenshots: brings up the demo (scripts/lib/demo-setup.mjs: the packed package in the
// pinned n8n, a seeded sandbox, the example workflows), logs in with headless Chromium and saves
// screenshots of the n8n editor to docs/images/*.jpg. Everything it started is stopped at the end.
//
// The browser is Debian's Chromium driven by playwright-core (scripts/lib/browser.mjs, shared with
// the browser suite): installed with apt when missing on Debian as root; CHROMIUM_PATH names another.
// JPEG, not PNG: the node-cli build copies every *.png of the repository into dist/, which is published.

import fs from 'node:fs';
import path from 'node:path';

import {
	canvasNode,
	clearOverlays,
	closeNode,
	launchBrowser,
	logIn,
	openNode,
	openWorkflow,
} from './lib/browser.mjs';
import {
	CAMPAIGN_EXAMPLE,
	ROOT,
	TRIGGER_EXAMPLE,
	createDemo,
	sandboxApi,
} from './lib/demo-setup.mjs';

const OUT_DIR = path.join(ROOT, 'docs', 'images');
const JPEG_QUALITY = 80;
const MAX_BYTES = 300 * 1024;
const EXPORT_EXAMPLE = 'export-call-transcripts';
const VOICE_AGENT_NODE = 'Get calls with transcripts';
const CALL_HISTORY_NODE = 'Calls ended since yesterday';
const PUSH_CONTEXT_EXAMPLE = 'push-context-into-live-call';
const SET_CONTEXT_NODE = 'Set call context';
const TRIGGER_NODE = 'When a call ends';

const log = (line) => console.log(`[screenshots] ${line}`);
const saved = [];

/** `npm run screenshots -- <name> ...` saves only those (the others are taken, not saved). */
const ONLY = process.argv.slice(2);

async function shoot(page, name, what) {
	if (ONLY.length > 0 && !ONLY.includes(name)) return log(`${name}: not asked for, not saved`);
	await clearOverlays(page);
	const file = path.join(OUT_DIR, `${name}.jpg`);
	await page.screenshot({ path: file, type: 'jpeg', quality: JPEG_QUALITY });
	const bytes = fs.statSync(file).size;
	log(`${path.relative(ROOT, file)} (${Math.round(bytes / 1024)} KB): ${what}`);
	if (bytes > MAX_BYTES) log(`  WARNING: larger than ${MAX_BYTES / 1024} KB`);
	saved.push({ file: path.relative(ROOT, file), what, bytes });
}

// ---------------------------------------------------------------------------------------------------
// The screenshots
// ---------------------------------------------------------------------------------------------------

/** The Voice Agent node's and the Call History Trigger's parameters, the canvas after a run, the output. */
async function exportWorkflowShots(page, demo) {
	await openWorkflow(page, demo.workflowUrl(EXPORT_EXAMPLE));
	await openNode(page, VOICE_AGENT_NODE);
	await page.locator('[data-test-id="parameter-input-includeTranscripts"]').waitFor();
	await shoot(
		page,
		'voice-agent-node-parameters',
		'Voice Agent node, Call > Get Many, Return All, Options > Include Transcripts, Transcript Format',
	);
	await closeNode(page);

	await openNode(page, CALL_HISTORY_NODE);
	await page.locator('[data-test-id="parameter-input-event"]').waitFor();
	await shoot(
		page,
		'call-history-trigger-parameters',
		'Voice Agent Call History Trigger: Poll Times, Watch For Call Ended, agent, Transcript Format',
	);
	await closeNode(page);

	// Run it as a user does, with the canvas's Execute workflow button (its only trigger).
	await runFrom(page, demo, EXPORT_EXAMPLE, 60_000, 'execute-workflow-button');
	await shoot(
		page,
		'workflow-export-call-transcripts',
		'the export example after a run: Voice Agent node listed the calls, one row each, CSV file',
	);

	await openNode(page, VOICE_AGENT_NODE);
	const output = page.locator('[data-test-id="output-panel"]');
	await output.locator('[data-test-id="radio-button-json"]').click();
	await output.getByText('"transcript_text"').first().waitFor();
	await shoot(
		page,
		'voice-agent-node-output',
		'Voice Agent node output after the run: every call with its transcript as text (JSON view)',
	);
	await closeNode(page);
}

/** The push-context example run from *Try it*: Call → Set Context on a live call, with its output. */
async function pushContextShot(page, demo) {
	await openWorkflow(page, demo.workflowUrl(PUSH_CONTEXT_EXAMPLE));
	await page.locator('[data-test-id="execute-workflow-button-Try it"]').click({ force: true });
	const [run] = await demo.server.rest.waitForExecutions(demo.workflow(PUSH_CONTEXT_EXAMPLE).id, {
		count: 1,
		timeoutMs: 60_000,
	});
	if (run.status !== 'success')
		throw new Error(`the push-context example's run ended ${run.status}`);
	await openNode(page, SET_CONTEXT_NODE);
	await page.locator('[data-test-id="output-panel"]').getByText('in_progress').first().waitFor();
	await shoot(
		page,
		'voice-agent-set-context',
		'Voice Agent node, Call > Set Context on the live call of a client number, and the updated call',
	);
	await closeNode(page);
}

/** (c) the trigger's panel. */
async function triggerPanelShot(page, demo) {
	await openWorkflow(page, demo.workflowUrl(TRIGGER_EXAMPLE));
	await openNode(page, TRIGGER_NODE);
	await page.locator('[data-test-id="resource-locator-agent"]').waitFor();
	await shoot(
		page,
		'voice-agent-trigger-parameters',
		'Voice Agent Trigger: agent from the list, events, respond, options',
	);
	await closeNode(page);
}

/** A call from the agent the trigger example listens to; it ends by itself after about 15 s. */
async function placeCall(demo) {
	return await sandboxApi(demo.sandbox, 'POST', '/call', {
		from: demo.triggerAgent.phone_number,
		to: '+14155550123',
		context: 'Follow-up on the quote for 20 seats, sent on Monday',
	});
}

/** (e) the call placed before has ended: the active trigger workflow ran; its execution, node opened. */
async function triggerExecutionShot(page, demo) {
	const workflow = demo.workflow(TRIGGER_EXAMPLE);
	const [execution] = await demo.server.rest.waitForExecutions(workflow.id, {
		count: 1,
		timeoutMs: 60_000,
	});
	if (execution.status !== 'success')
		throw new Error(`the trigger example's run ended ${execution.status}`);
	await page.goto(`${demo.editorUrl}/workflow/${workflow.id}/executions/${execution.id}`);
	await canvasNode(page, 'Transcript for the CRM').waitFor();
	await page.waitForLoadState('networkidle');
	await clearOverlays(page);
	await openNode(page, 'Transcript for the CRM');
	await shoot(
		page,
		'voice-agent-trigger-execution',
		`a call of "${demo.triggerAgent.name}" ended: the trigger's item (with the transcript) and the CRM row`,
	);
}

/**
 * Runs an open example from a button (by default its *Run now* trigger's), as a user clicks it, and waits
 * until its run succeeded and the canvas shows the items on its connections.
 */
async function runFrom(page, demo, example, timeoutMs, button = 'execute-workflow-button-Run now') {
	await page.locator(`[data-test-id="${button}"]`).first().click({ force: true });
	const [run] = await demo.server.rest.waitForExecutions(demo.workflow(example).id, {
		count: 1,
		timeoutMs,
	});
	if (run.status !== 'success') throw new Error(`the ${example} example's run ended ${run.status}`);
	await page
		.locator('[data-test-id="edge-label"]', { hasText: /\d+ items?/ })
		.first()
		.waitFor();
	await page.waitForTimeout(1000); // the canvas finishes drawing the run's state
}

/** The campaign example after one pass from *Run now* over the demo's Data Table of leads. */
async function campaignShot(page, demo) {
	const name = 'workflow-call-leads-within-hours';
	if (ONLY.length > 0 && !ONLY.includes(name)) return log(`${name}: not asked for, not taken`);
	await openWorkflow(page, demo.workflowUrl(CAMPAIGN_EXAMPLE));
	await runFrom(page, demo, CAMPAIGN_EXAMPLE, 180_000);
	await shoot(
		page,
		name,
		'the campaign example after a pass: due leads from the Data Table, called within their hours, outcomes written back',
	);
}

// ---------------------------------------------------------------------------------------------------

async function main() {
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const demo = createDemo();
	let browser;
	const stop = async () => {
		await browser?.close();
		await demo.stop();
	};
	for (const signal of ['SIGINT', 'SIGTERM'])
		process.once(signal, () => void stop().finally(() => process.exit(130)));
	try {
		// Free ports: an `npm run demo` may be running on the usual ones.
		await demo.start({ log, n8nPort: 0, sandboxPort: 0 });
		browser = await launchBrowser({ log });
		const { page } = browser;
		if (!demo.workflow(TRIGGER_EXAMPLE).active)
			throw new Error('the trigger example could not be activated');
		await logIn(page, demo.editorUrl, demo.owner);
		await exportWorkflowShots(page, demo);
		await pushContextShot(page, demo);
		await placeCall(demo); // after the export: its output shows the seeded, ended calls only
		await triggerPanelShot(page, demo);
		await triggerExecutionShot(page, demo);
		// Last: its calls come from an agent of the demo, after the trigger example's execution is taken.
		await campaignShot(page, demo);
		log(`${saved.length} screenshots in ${path.relative(ROOT, OUT_DIR)}/`);
	} finally {
		await stop();
	}
}

main().catch((error) => {
	console.error(`[screenshots] failed: ${error.message}`);
	process.exitCode = 1;
});
