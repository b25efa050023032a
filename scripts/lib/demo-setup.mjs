// The demo's building blocks, shared by scripts/demo.mjs and scripts/screenshots.mjs: the packed
// package installed into a pinned real n8n (VOICE_AGENT_N8N_VERSION chooses which), a seeded sandbox
// of the Voice Agent service, a "Voice Agent (sandbox)" credential, the example workflows, an owner,
// and the Data Table of leads the campaign example reads and writes.
//
// Runs under the system Node (20 or later). Everything it starts is ended by `demo.stop()`.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { installPackage, packPackage, ROOT } from './community-package.mjs';
import { SANDBOX_API_KEY, sandboxApi, startSeededSandbox } from './demo-sandbox.mjs';
import { importCredentials, importWorkflows } from './n8n-cli.mjs';
import { startN8nServer } from './n8n-server.mjs';
import { choosePort } from './processes.mjs';
import { ensureRuntime } from './runtime-install.mjs';
import { createUserFolder, removeUserFolder } from './user-folder.mjs';

export { ROOT } from './community-package.mjs';
export { SANDBOX_API_KEY, sandboxApi } from './demo-sandbox.mjs';

/** The credential the example workflows reference (by this id and name). */
export const CREDENTIAL = Object.freeze({ id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' });
/** The example workflows, in the order they are imported and listed. */
export const EXAMPLES = Object.freeze([
	'export-call-transcripts',
	'upsert-agents-from-crm',
	'push-context-into-live-call',
	'call-lead-and-log-outcome',
	'call-a-list-of-leads',
	'call-leads-within-hours',
	'log-transcript-when-call-ends',
]);
export const TRIGGER_EXAMPLE = 'log-transcript-when-call-ends';
export const CAMPAIGN_EXAMPLE = 'call-leads-within-hours';

/**
 * The Data Table the campaign example works on: the lead's own columns, then those the workflow writes
 * (left empty for a new lead). Its Data Table nodes are given the table once it exists.
 */
export const LEADS_TABLE = Object.freeze({
	name: 'Leads',
	columns: Object.freeze([
		{ name: 'name', type: 'string' },
		{ name: 'phone', type: 'string' },
		{ name: 'outcome', type: 'string' },
		{ name: 'attempt', type: 'number' },
		{ name: 'next_call_at', type: 'string' },
		{ name: 'call_id', type: 'string' },
		{ name: 'status', type: 'string' },
	]),
});

/** The demo's leads, in the countries the campaign example may call; the number ending in 0000 fails. */
const DEMO_LEADS = Object.freeze([
	{ name: 'Dana Whitfield', phone: '+12125550142' },
	{ name: 'Marco Ruiz', phone: '+14155550143' },
	{ name: 'Aiko Tanaka', phone: '+81355550144' },
	{ name: 'Priya Natarajan', phone: '+912255550147' },
	{ name: 'Grace Lee', phone: '+61255550151' },
	{ name: 'Tom Brennan', phone: '+442055550148' },
	{ name: 'Omar Haddad', phone: '+14155550000' },
]);

/** The resource locator of a Data Table as the editor saves it when the table is picked from the list. */
export const dataTableLocator = (table) => ({
	__rl: true,
	mode: 'list',
	value: table.id,
	cachedResultName: table.name,
});

// ---------------------------------------------------------------------------------------------------
// Small pieces
// ---------------------------------------------------------------------------------------------------

/** An owner for a fresh n8n: the password has 8-64 characters, a digit and an upper-case letter. */
export function demoOwner(email = 'demo@example.com') {
	return {
		email,
		firstName: 'Demo',
		lastName: 'User',
		password: `Demo-${randomBytes(4).toString('hex')}-7Q`,
	};
}

export function readExample(name) {
	return JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', `${name}.json`), 'utf8'));
}

/**
 * The example workflows as imported: the trigger example's agent is set to `triggerAgent` (picked
 * from the list, as a user would), so the workflow can be activated as it is.
 */
export function demoWorkflows(triggerAgent) {
	return EXAMPLES.map((name) => {
		const workflow = readExample(name);
		if (name === TRIGGER_EXAMPLE) {
			const trigger = workflow.nodes.find((node) => node.type.endsWith('.voiceAgentTrigger'));
			trigger.parameters.agent = {
				__rl: true,
				mode: 'list',
				value: triggerAgent.id,
				cachedResultName: `${triggerAgent.name} (${triggerAgent.phone_number})`,
			};
		}
		return workflow;
	});
}

// ---------------------------------------------------------------------------------------------------
// The whole set-up
// ---------------------------------------------------------------------------------------------------

/**
 * Brings up the demo: sandbox, pinned n8n with the packed package, credential, example workflows,
 * owner; optionally activates the trigger example. Whatever was started before a failure is stopped.
 * For a caller that must be able to stop it while it starts (Ctrl-C), use createDemo() and start().
 * @param {Parameters<Demo['start']>[0]} [options]
 */
export async function startDemo(options) {
	const demo = createDemo();
	await demo.start(options);
	return demo;
}

export function createDemo() {
	return new Demo();
}

class Demo {
	constructor() {
		this.timings = {};
		this.workflows = []; // { name, file, id, active }
		this.warnings = [];
		this.log = () => {};
	}

	async step(label, fn) {
		if (this.stopping) throw new Error('the demo was stopped while it started');
		const started = Date.now();
		const result = await fn();
		this.timings[label] = Date.now() - started;
		this.log(`${label}: done in ${(this.timings[label] / 1000).toFixed(1)} s`);
		return result;
	}

	/**
	 * @param {{ log?: (line: string) => void, n8nPort?: number, sandboxPort?: number, agents?: number,
	 *   calls?: number, activateTrigger?: boolean, owner?: { email: string, password: string } }} [options]
	 */
	async start(options = {}) {
		try {
			await this.startAll(options);
		} catch (error) {
			await this.stop().catch(() => {});
			throw error;
		}
	}

	async startAll({
		log = (line) => console.log(line),
		n8nPort: preferredN8nPort = 5678,
		sandboxPort = 4010,
		agents = 4,
		calls = 40,
		activateTrigger = true,
		owner = demoOwner(),
	}) {
		this.log = log;
		this.owner = owner;
		const started = Date.now();

		this.runtime = await this.step('pinned n8n runtime', () =>
			ensureRuntime({ log: (line) => log(`  [n8n-runtime] ${line}`) }),
		);
		const { runtime } = this;
		this.pack = await this.step('npm pack', () => packPackage());
		this.userFolder = createUserFolder({ prefix: 'voice-agent-demo-' });
		log(`n8n user folder: ${this.userFolder}`);
		const installed = await this.step('install the package into <user folder>/.n8n/nodes', () =>
			installPackage(this.userFolder, this.pack.tarball),
		);
		this.packageVersion = `${installed.name}@${installed.version}`;
		this.pack.remove(); // installed: the tarball is not needed any more
		this.pack = undefined;

		const { sandbox, fallback } = await this.step('sandbox', () =>
			startSeededSandbox({ port: sandboxPort, agents, calls }),
		);
		this.sandbox = sandbox;
		if (fallback)
			this.warn(`port ${sandboxPort} is taken: the sandbox listens on ${sandbox.port} instead`);
		this.triggerAgent = await this.pickTriggerAgent();

		await this.step('import the credential and the example workflows', () => this.importData());

		const { port, fallback: n8nFallback } = await choosePort(preferredN8nPort);
		if (n8nFallback) this.warn(`port ${preferredN8nPort} is taken: n8n listens on ${port} instead`);
		this.server = await this.step('n8n start', () =>
			startN8nServer(this.userFolder, { runtime, port }),
		);
		this.editorUrl = `http://localhost:${this.server.port}`;
		await this.step('owner set-up and login', () => this.server.setupOwnerAndLogin(owner));

		await this.prepareCampaignExample();
		if (activateTrigger) await this.activateTriggerExample();
		if (this.stopping) throw new Error('the demo was stopped while it started');
		this.timings.total = Date.now() - started;
	}

	warn(message) {
		this.warnings.push(message);
		this.log(`NOTE: ${message}`);
	}

	/** A seeded agent without a webhook, so the trigger example can register itself with it. */
	async pickTriggerAgent() {
		const { agents } = await sandboxApi(this.sandbox, 'GET', '/agents?limit=100');
		const agent = agents.find((candidate) => !candidate.webhook) ?? agents[0];
		if (!agent) throw new Error('the sandbox has no agent for the trigger example');
		return agent;
	}

	async importData() {
		const { runtime } = this;
		const credential = {
			...CREDENTIAL,
			type: 'voiceAgentApi',
			data: { apiKey: SANDBOX_API_KEY, baseUrl: this.sandbox.baseUrl },
		};
		await importCredentials(this.userFolder, [credential], { runtime });
		const workflows = demoWorkflows(this.triggerAgent);
		const ids = await importWorkflows(this.userFolder, workflows, { runtime });
		this.workflows = workflows.map((workflow, index) => ({
			file: `examples/${EXAMPLES[index]}.json`,
			example: EXAMPLES[index],
			name: workflow.name,
			id: ids[index],
			active: false,
		}));
	}

	workflow(example) {
		return this.workflows.find((workflow) => workflow.example === example);
	}

	workflowUrl(example) {
		return `${this.editorUrl}/workflow/${this.workflow(example).id}`;
	}

	/**
	 * The Data Table of leads (n8n 1.113 or later), picked in the campaign example's Data Table nodes, as
	 * a user sets it up after importing the example. Older n8n has no Data Tables: the demo goes on.
	 */
	async prepareCampaignExample() {
		const workflow = this.workflow(CAMPAIGN_EXAMPLE);
		try {
			await this.step(`Data Table "${LEADS_TABLE.name}" for "${workflow.name}"`, async () => {
				const { rest } = this.server;
				const { id: projectId } = await rest.personalProject();
				const table = await rest.createDataTable(projectId, LEADS_TABLE);
				await rest.insertDataTableRows(projectId, table.id, DEMO_LEADS);
				const saved = await rest.getWorkflow(workflow.id);
				const nodes = saved.nodes.map((node) =>
					node.type === 'n8n-nodes-base.dataTable'
						? { ...node, parameters: { ...node.parameters, dataTableId: dataTableLocator(table) } }
						: node,
				);
				await rest.request('PATCH', `/rest/workflows/${encodeURIComponent(workflow.id)}`, {
					nodes,
					versionId: saved.versionId,
				});
			});
		} catch (error) {
			this.warn(`the campaign example has no Data Table of leads: ${error.message}`);
		}
	}

	async activateTriggerExample() {
		const workflow = this.workflow(TRIGGER_EXAMPLE);
		try {
			await this.step(`activate "${workflow.name}"`, () =>
				this.server.rest.activateWorkflow(workflow.id),
			);
			workflow.active = true;
		} catch (error) {
			this.warn(`could not activate "${workflow.name}": ${error.message}`);
		}
	}

	/**
	 * Stops n8n, closes the sandbox, removes the temp folders. Safe to call more than once, also while
	 * start() runs: start() then fails at its next step and stops what it had started meanwhile.
	 */
	async stop() {
		this.stopping = true;
		this.stopChain = (this.stopChain ?? Promise.resolve())
			.catch(() => {})
			.then(() => this.stopAll());
		return await this.stopChain;
	}

	async stopAll() {
		const problems = [];
		const attempt = async (field, fn) => {
			const value = this[field];
			this[field] = undefined;
			if (value === undefined) return;
			try {
				await fn(value);
			} catch (error) {
				problems.push(error.message);
			}
		};
		await attempt('server', (server) => server.stop());
		await attempt('sandbox', (sandbox) => sandbox.close());
		await attempt('userFolder', (folder) => removeUserFolder(folder));
		await attempt('pack', (pack) => pack.remove());
		if (problems.length) throw new Error(`stopping the demo: ${problems.join('; ')}`);
	}
}
