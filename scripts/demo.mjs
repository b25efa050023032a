#!/usr/bin/env node
// npm run demo: the packed package in a pinned real n8n (the default, 2.41.1, or the one
// VOICE_AGENT_N8N_VERSION names, e.g. 1.123.x), wired to a seeded sandbox of the Voice Agent
// service, with the example workflows imported. Prints what to open, then waits.
// Ctrl-C (SIGINT), SIGTERM or SIGHUP stops n8n and the sandbox and removes the temp folders.
//
// `npm run demo` builds first; run directly (`node scripts/demo.mjs`) it packs the dist/ there is.
// Standard input is not read, so it runs the same without a terminal.

import { dialectFor } from './lib/n8n-dialect.mjs';
import { CREDENTIAL, SANDBOX_API_KEY, TRIGGER_EXAMPLE, createDemo } from './lib/demo-setup.mjs';

const log = (line) => console.log(`[demo] ${line}`);
const demo = createDemo();
let shuttingDown = false;

function printReady() {
	const trigger = demo.workflow(TRIGGER_EXAMPLE);
	const agent = demo.triggerAgent;
	const { sandbox, runtime } = demo;
	const { activate } = dialectFor(runtime);
	const lines = [
		'',
		`Voice Agent demo is running: ${demo.packageVersion} in n8n ${runtime.version} (started in ${(demo.timings.total / 1000).toFixed(1)} s)`,
		'',
		`  n8n editor   ${demo.editorUrl}`,
		`  log in with  ${demo.owner.email}  /  ${demo.owner.password}`,
		'',
		'  Example workflows (Overview > Workflows):',
		...demo.workflows.map(
			(workflow) =>
				`    ${demo.workflowUrl(workflow.example)}  ${workflow.name}${workflow.active ? '  [active]' : ''}`,
		),
		'',
		`  Credential   "${CREDENTIAL.name}" (Overview > Credentials), pointing at the sandbox`,
		`  Sandbox      ${sandbox.baseUrl}  API key: ${SANDBOX_API_KEY}`,
		`  Agents       curl -s -H 'Authorization: Bearer ${SANDBOX_API_KEY}' '${sandbox.baseUrl}/agents?limit=10'`,
		'',
		'  Try it:',
		'  - open "export call transcripts" and click "Execute workflow": every call that has ended, with its',
		'    transcript as text, one CSV row each (published, it exports the calls that ended, daily at 7:00);',
		'  - open "push context into a live call" and execute it: its sample number is on a live call in the sandbox',
		'    (the sandbox keeps 3 calls in progress for a day), which gets the new context;',
		'  - open "call a lead and log the outcome" and execute it: it places a call (it ends after about 15 s),',
		'    waits for it to end and outputs its transcript;',
		'  - open "call a list of leads" and click "Execute workflow": it calls 12 leads, 5 at once and at most 10 a',
		"    minute, and waits for every call to end: about 1½ minutes with the sandbox's 15-second calls (n8n shows",
		"    only a spinner meanwhile). It calls weekdays 09:00–20:00 in the leads' own time (Los Angeles); outside",
		'    those hours each lead comes out "deferred", with its "reason" and "next_call_at" (its sticky note says',
		'    how to call now);',
		trigger.active
			? `  - the trigger workflow listens to "${agent.name}" (${agent.phone_number}). Place a call; it ends after`
			: `  - ${activate} the trigger workflow (it listens to "${agent.name}", ${agent.phone_number}), place a call; it ends after`,
		'    about 15 s and the workflow runs (see its Executions tab):',
		`      curl -s -H 'Authorization: Bearer ${SANDBOX_API_KEY}' -H 'Content-Type: application/json' \\`,
		`        -d '{"from":"${agent.phone_number}","to":"+14155550123","context":"Follow-up on the quote sent on Monday"}' \\`,
		`        ${sandbox.baseUrl}/call`,
		'',
		`  n8n log: ${demo.server.logFile}`,
		'  Press Ctrl-C to stop: n8n and the sandbox stop and the temp folders are removed.',
		'',
	];
	if (demo.warnings.length) lines.push(...demo.warnings.map((warning) => `  NOTE: ${warning}`), '');
	console.log(lines.join('\n'));
}

async function shutdown(reason, exitCode = 0) {
	if (shuttingDown) return;
	shuttingDown = true;
	log(`${reason}: stopping n8n and the sandbox, removing the temp folders ...`);
	try {
		await demo.stop();
		log('stopped; nothing left running');
	} catch (error) {
		log(error.message);
		exitCode ||= 1;
	}
	process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => {
		if (shuttingDown) {
			log(`${signal} again: exiting now`);
			process.exit(130);
		}
		void shutdown(signal);
	});
}

/** Ends the demo if n8n exits by itself (crashed, or killed from outside). */
function watchN8n(server) {
	const timer = setInterval(() => {
		if (shuttingDown) return clearInterval(timer);
		try {
			process.kill(server.pid, 0);
		} catch {
			clearInterval(timer);
			console.error(server.output().split('\n').slice(-30).join('\n'));
			void shutdown('n8n exited unexpectedly', 1);
		}
	}, 2000);
	timer.unref();
}

async function main() {
	log('starting: sandbox, pinned n8n with the packed package, credential, example workflows');
	await demo.start({ log });
	if (shuttingDown) return;
	printReady();
	watchN8n(demo.server);
}

main().catch(async (error) => {
	if (shuttingDown) return;
	console.error(`[demo] failed: ${error.message}`);
	await shutdown('failure', 1);
});
