// n8n's command line, headless, on a user folder: import credentials and workflows, execute a
// workflow and read its run. Each command boots n8n (a few seconds). Node built-ins only.

import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { n8nEnv } from './n8n-env.mjs';
import { findFreePort, runCaptured, tail } from './processes.mjs';
import { extractRunJson } from './run-data.mjs';
import { runtimePaths } from './runtime-folder.mjs';
import { harnessDir } from './user-folder.mjs';

/** A 16-character id in the alphabet n8n uses for workflow and credential ids. */
export function newN8nId() {
	const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
	return [...randomBytes(16)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * Runs `n8n ...args` on a user folder with the runtime's Node and collects its output.
 * `runtime` defaults to the installed runtime VOICE_AGENT_N8N_VERSION selects (see runtimePaths).
 * @param {string[]} args
 * @param {{ userFolder: string, runtime?: ReturnType<typeof runtimePaths>,
 *   env?: Record<string, string | undefined>, timeoutMs?: number }} options
 */
export async function runN8n(
	args,
	{ userFolder, runtime = runtimePaths(), env = {}, timeoutMs = 180_000 },
) {
	if (!userFolder) throw new Error('runN8n: userFolder is required');
	// Commands that run workflows start a task broker (default port 5679): give each its own port so
	// runs can overlap with each other and with a server.
	const brokerPort = env.N8N_RUNNERS_BROKER_PORT ?? String(await findFreePort());
	return await runCaptured(runtime.node, [runtime.n8n, ...args], {
		cwd: userFolder,
		env: n8nEnv(runtime, userFolder, { N8N_RUNNERS_BROKER_PORT: brokerPort, ...env }),
		timeoutMs,
	});
}

function checkCliResult(what, result) {
	if (result.timedOut)
		throw new Error(`${what} timed out after ${result.ms} ms:\n${tail(result.output)}`);
	if (result.code !== 0 || /An error occurred while importing/i.test(result.output)) {
		throw new Error(`${what} failed (exit ${result.code}):\n${tail(result.output)}`);
	}
}

/** Writes an import file into the user folder, runs the import, removes the file. */
async function importFile(kind, userFolder, entries, options) {
	const file = path.join(harnessDir(userFolder), `${kind}-${Date.now()}-${process.pid}.json`);
	// Credentials hold plain secrets: only the owner may read the file, which is kept no longer than needed.
	fs.writeFileSync(file, JSON.stringify(entries, null, 2), { mode: 0o600 });
	try {
		const result = await runN8n([`import:${kind}`, `--input=${file}`], { userFolder, ...options });
		checkCliResult(`n8n import:${kind}`, result);
	} finally {
		fs.rmSync(file, { force: true });
	}
	return entries.map((entry) => entry.id);
}

/**
 * Imports credentials with `n8n import:credentials`. Each entry is n8n's import format:
 * `{ id?, name, type, data: { ...plain fields } }`; the import encrypts `data` with the folder's
 * key. Missing ids are generated. They go to the owner's personal project.
 * @returns {Promise<string[]>} the credential ids, in order
 */
export async function importCredentials(userFolder, credentials, options = {}) {
	const entries = credentials.map((credential) => ({
		id: credential.id ?? newN8nId(),
		...credential,
	}));
	return await importFile('credentials', userFolder, entries, options);
}

/**
 * Imports workflows with `n8n import:workflow`, inactive (the server's REST client makes them live).
 * Fills in what n8n expects when missing: id, node ids, connections, settings.
 * @returns {Promise<string[]>} the workflow ids, in order
 */
export async function importWorkflows(userFolder, workflows, options = {}) {
	const entries = workflows.map((workflow) => ({
		id: workflow.id ?? newN8nId(),
		name: workflow.name ?? 'e2e workflow',
		active: false,
		connections: {},
		settings: { executionOrder: 'v1' },
		...workflow,
		nodes: (workflow.nodes ?? []).map((node) => ({ id: node.id ?? randomUUID(), ...node })),
	}));
	return await importFile('workflow', userFolder, entries, options);
}

/**
 * Runs a workflow headless with `n8n execute --id=ID --rawOutput` (it must start with a Manual
 * Trigger). `run` is n8n's IRun (`run.data.resultData.runData[node]`, `.error` when it failed);
 * a failed run is returned too (ok: false) when n8n printed it.
 * @returns {Promise<{ ok: boolean, run: object | undefined, code: number | null, output: string,
 *   ms: number, timedOut: boolean }>}
 */
export async function executeWorkflowDetailed(userFolder, workflowId, { env, ...options } = {}) {
	// At info level n8n also prints the run of a failed execution; the JSON is found among the logs.
	const result = await runN8n(['execute', `--id=${workflowId}`, '--rawOutput'], {
		userFolder,
		env: { N8N_LOG_LEVEL: 'info', ...env },
		...options,
	});
	const run = extractRunJson(result.stdout) ?? extractRunJson(result.output);
	const ok = result.code === 0 && Boolean(run) && !run.data.resultData.error;
	const { code, output, ms, timedOut } = result;
	return { ok, run, code, output, ms, timedOut };
}

/**
 * Runs a workflow headless and returns its run (n8n's IRun). Throws when n8n printed no run; a
 * failed run is returned, with `run.data.resultData.error` set.
 */
export async function executeWorkflow(userFolder, workflowId, options = {}) {
	const detailed = await executeWorkflowDetailed(userFolder, workflowId, options);
	if (!detailed.run) {
		throw new Error(
			`n8n execute --id=${workflowId} printed no run JSON (exit ${detailed.code}${detailed.timedOut ? ', timed out' : ''}):\n` +
				tail(detailed.output, 40),
		);
	}
	return detailed.run;
}
