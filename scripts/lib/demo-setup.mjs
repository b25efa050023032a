// The demo's building blocks, shared by scripts/demo.mjs and scripts/screenshots.mjs: the packed
// package installed into the pinned real n8n (scripts/lib/n8n-harness.mjs), a seeded sandbox of the
// Voice Agent service, a "Voice Agent (sandbox)" credential, the example workflows and an owner.
//
// Runs under the system Node (20 or later). Everything it starts is ended by `demo.stop()`.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import {
	createUserFolder,
	ensureRuntime,
	importCredentials,
	importWorkflows,
	installPackageTarball,
	removeUserFolder,
	startN8nServer,
} from './n8n-harness.mjs';
import { cleanNpmEnv } from './n8n-runtime.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { startSandbox } = createRequire(import.meta.url)('../../sandbox/index.js');

export const SANDBOX_API_KEY = 'sandbox-key';
/** The credential the example workflows reference (by this id and name). */
export const CREDENTIAL = Object.freeze({ id: 'VoiceAgentSandbx', name: 'Voice Agent (sandbox)' });
/** The example workflows, in the order they are imported and listed. */
export const EXAMPLES = Object.freeze([
	'export-call-transcripts',
	'upsert-agents-from-crm',
	'push-context-into-live-call',
	'log-transcript-when-call-ends',
]);
export const TRIGGER_EXAMPLE = 'log-transcript-when-call-ends';

// ---------------------------------------------------------------------------------------------------
// Small pieces
// ---------------------------------------------------------------------------------------------------

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Whether nothing listens on the port yet (checked on all interfaces, as n8n and the sandbox bind). */
export function portIsFree(port) {
	return new Promise((resolve) => {
		const probe = net.createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, () => probe.close(() => resolve(true)));
	});
}

/** The preferred port when it is free, else a free one from the OS: `{ port, fallback }`. 0: any free port. */
export async function choosePort(preferred) {
	if (preferred && (await portIsFree(preferred))) return { port: preferred, fallback: false };
	const probe = net.createServer();
	await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
	const { port } = probe.address();
	await new Promise((resolve) => probe.close(resolve));
	return { port, fallback: Boolean(preferred) };
}

/** An owner for a fresh n8n: the password has 8-64 characters, a digit and an upper-case letter. */
export function demoOwner(email = 'demo@example.com') {
	return {
		email,
		firstName: 'Demo',
		lastName: 'User',
		password: `Demo-${randomBytes(4).toString('hex')}-7Q`,
	};
}

/** `npm pack` of this repository into a new temp folder: `{ dir, tarball }` (dist/ must be built). */
export async function packPackage() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-pack-'));
	try {
		await promisify(execFile)('npm', ['pack', '--silent', '--pack-destination', dir], {
			cwd: ROOT,
			env: cleanNpmEnv(),
		});
		const file = fs.readdirSync(dir).find((name) => name.endsWith('.tgz'));
		if (!file) throw new Error('npm pack wrote no tarball');
		return { dir, tarball: path.join(dir, file) };
	} catch (error) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

/** Every file package.json's `n8n` section names must be in the installed package (a half-built dist/ is not). */
function checkInstalledFiles(installedDir) {
	const pkg = JSON.parse(fs.readFileSync(path.join(installedDir, 'package.json'), 'utf8'));
	const missing = [...pkg.n8n.nodes, ...pkg.n8n.credentials].filter(
		(file) => !fs.existsSync(path.join(installedDir, file)),
	);
	if (missing.length)
		throw new Error(
			`the packed package lacks ${missing.join(', ')}: run \`npm run build\` and try again`,
		);
}

/** The sandbox with seeded agents and calls on the preferred port, or a free one when that is taken. */
export async function startSeededSandbox({ port: preferred = 4010, agents = 4, calls = 40 } = {}) {
	const { port, fallback } = await choosePort(preferred);
	const sandbox = await startSandbox({ port, apiKeys: [SANDBOX_API_KEY], agents, calls });
	return { sandbox, fallback };
}

/** A request to the sandbox's API (path relative to /v1) with the demo key. */
export async function sandboxApi(sandbox, method, urlPath, body) {
	const response = await fetch(`${sandbox.baseUrl}${urlPath}`, {
		method,
		headers: {
			authorization: `Bearer ${SANDBOX_API_KEY}`,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok)
		throw new Error(`sandbox ${method} ${urlPath} answered ${response.status}: ${text}`);
	return text ? JSON.parse(text) : null;
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
		this.log(`${label}: done in ${seconds(this.timings[label])}`);
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

		await this.step('pinned n8n runtime', () =>
			ensureRuntime({ log: (line) => log(`  [n8n-runtime] ${line}`) }),
		);
		this.pack = await this.step('npm pack', () => packPackage());
		this.userFolder = createUserFolder({ prefix: 'voice-agent-demo-' });
		log(`n8n user folder: ${this.userFolder}`);
		const installed = await this.step(
			'install the package into <user folder>/.n8n/nodes',
			async () => {
				const result = await installPackageTarball(this.userFolder, this.pack.tarball);
				checkInstalledFiles(result.dir);
				return result;
			},
		);
		this.packageVersion = `${installed.name}@${installed.version}`;
		fs.rmSync(this.pack.dir, { recursive: true, force: true }); // installed: the tarball is not needed any more
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
		this.server = await this.step('n8n start', () => startN8nServer(this.userFolder, { port }));
		this.editorUrl = `http://localhost:${this.server.port}`;
		await this.step('owner set-up and login', () => this.server.setupOwnerAndLogin(owner));

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
		await importCredentials(this.userFolder, [
			{
				...CREDENTIAL,
				type: 'voiceAgentApi',
				data: { apiKey: SANDBOX_API_KEY, baseUrl: this.sandbox.baseUrl },
			},
		]);
		const workflows = demoWorkflows(this.triggerAgent);
		const ids = await importWorkflows(this.userFolder, workflows);
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
		await attempt('pack', (pack) => fs.rmSync(pack.dir, { recursive: true, force: true }));
		if (problems.length) throw new Error(`stopping the demo: ${problems.join('; ')}`);
	}
}
