#!/usr/bin/env node
// npm run bench: the Voice Agent node in the pinned real n8n, side by side with what a user builds without
// it (n8n's HTTP Request node with cursor pagination and Split Out, one HTTP Request per call for transcripts)
// and with the floor (plain `fetch` loops in a bare Node process), in one run, against the sandbox over HTTP
// and HTTPS. Prints Markdown tables: medians with min–max over alternating runs, ratios, requests,
// connections, requests in flight, 429s and peak memory. It measures and prints; it asserts no time.
//
//   npm run bench -- [--runs N] [--only list,limit,transcripts,rate-limit,tls] [--rate-limit N]
//                    [--profile DIR]   (a CPU profile of every workflow run, for Chrome DevTools)
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { installPackage, packPackage } from '../scripts/lib/community-package.mjs';
import { startN8nServer } from '../scripts/lib/n8n-server.mjs';
import { ensureRuntime } from '../scripts/lib/runtime-install.mjs';
import { createUserFolder, removeUserFolder } from '../scripts/lib/user-folder.mjs';
import { Report } from './report.mjs';
import { renderTargets } from './targets.mjs';
import { alternate, Floor, N8nJobs } from './runners.mjs';
import { control } from './sandbox-control.mjs';
import { workflowsFor } from './workflows.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { startSandbox } = createRequire(import.meta.url)('../sandbox/index.js');

const { values: flags } = parseArgs({
	options: {
		runs: { type: 'string', default: '5' },
		only: { type: 'string' },
		'rate-limit': { type: 'string', default: '50' },
		profile: { type: 'string' },
	},
});
const RUNS = Number(flags.runs);
const RATE_LIMIT = Number(flags['rate-limit']);
const ONLY = flags.only ? new Set(flags.only.split(',')) : undefined;
const wanted = (scenario) => !ONLY || ONLY.has(scenario);
const LIST_SIZES = [10_000, 20_000, 100_000];
const TRANSCRIPT_CALLS = 200;
const LATENCY_MS = 20;
/** The node's default Max Requests in Parallel: the bound of its fan-out. */
const MAX_IN_FLIGHT = 50;
const log = (line) => process.stderr.write(`[bench] ${line}\n`);

const LIST_KEY = 'bench-list-key';
const TRANSCRIPT_KEY = 'bench-transcripts-key';

/**
 * One sandbox account in n8n: the node's credential and a Header Auth credential with the same key, made
 * through n8n's REST API as the editor makes them, and the jobs' workflows that use them.
 */
async function account(rest, sandbox, apiKey, prefix) {
	const create = async (name, type, data) =>
		(await rest.request('POST', '/rest/credentials', { name, type, data })).id;
	const credential = {
		id: await create(`Voice Agent (${prefix})`, 'voiceAgentApi', {
			apiKey,
			baseUrl: sandbox.baseUrl,
		}),
		name: `Voice Agent (${prefix})`,
		baseUrl: sandbox.baseUrl,
		header: {
			id: await create(`Header Auth (${prefix})`, 'httpHeaderAuth', {
				name: 'Authorization',
				value: `Bearer ${apiKey}`,
			}),
			name: `Header Auth (${prefix})`,
		},
	};
	const jobs = workflowsFor(prefix, credential);
	for (const job of Object.values(jobs)) {
		const { id } = await rest.request('POST', '/rest/workflows', job.workflow);
		await rest.activateWorkflow(id);
	}
	return { apiKey, jobs };
}

/** The variants of a job: the node's and the HTTP Request node's workflows, and the floor's loop. */
function variants(n8n, floor, sandbox, acc, [node, http], floorJob) {
	return [
		{ label: 'node', run: () => n8n.run(acc.jobs[node], sandbox) },
		{ label: 'http', run: () => n8n.run(acc.jobs[http], sandbox) },
		{ label: 'floor', run: () => floor.run({ ...floorJob, apiKey: acc.apiKey }, sandbox) },
	];
}

async function main() {
	const runtime = await ensureRuntime({ log: (line) => log(line) });
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-agent-bench-'));
	const userFolder = createUserFolder({ prefix: 'voice-agent-bench-n8n-' });
	const sandboxes = [];
	let server;
	let floor;
	try {
		const pack = await packPackage();
		await installPackage(userFolder, pack.tarball).finally(() => pack.remove());
		const start = (tls) =>
			startSandbox({ port: 0, apiKeys: [LIST_KEY, TRANSCRIPT_KEY], agents: 0, calls: 0, tls });
		const plain = await start(false);
		const secure = await start(true);
		sandboxes.push(plain, secure);
		// n8n and the floor trust the HTTPS sandbox's self-signed certificate, as they would a real CA's.
		const certificateFile = path.join(work, 'sandbox-cert.pem');
		fs.writeFileSync(certificateFile, secure.certificate);
		const resultsFile = path.join(work, 'results.jsonl');
		server = await startN8nServer(userFolder, {
			runtime,
			env: {
				EXTERNAL_HOOK_FILES: path.join(here, 'n8n-hooks.cjs'),
				VOICE_AGENT_BENCH_RESULTS: resultsFile,
				EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
				NODE_EXTRA_CA_CERTS: certificateFile,
				// The hook collects garbage before each run, so each starts from the same heap.
				NODE_OPTIONS: '--expose-gc',
				...(flags.profile ? { VOICE_AGENT_BENCH_PROFILE: path.resolve(flags.profile) } : {}),
			},
		});
		await server.setupOwnerAndLogin();
		const accounts = {
			plainList: await account(server.rest, plain, LIST_KEY, 'plain-list'),
			plainTranscripts: await account(server.rest, plain, TRANSCRIPT_KEY, 'plain-transcripts'),
			tlsList: await account(server.rest, secure, LIST_KEY, 'tls-list'),
			tlsTranscripts: await account(server.rest, secure, TRANSCRIPT_KEY, 'tls-transcripts'),
		};
		log(`n8n ${runtime.version} (Node ${runtime.nodeVersion}) ready at ${server.url}`);
		const n8n = new N8nJobs(server, resultsFile);
		floor = new Floor(runtime, { NODE_EXTRA_CA_CERTS: certificateFile });
		const report = new Report(RUNS);
		const measure = async (id, section, title, calls, jobVariants) => {
			log(title);
			report.add(id, section, title, await alternate(jobVariants, RUNS), { calls });
		};

		let seeded = 0;
		for (const calls of LIST_SIZES) {
			const here = [];
			if (wanted('list')) here.push('list');
			if (calls === 20_000) here.push(...['limit', 'tls'].filter(wanted));
			if (here.length === 0) continue;
			for (const sandbox of calls <= 20_000 ? [plain, secure] : [plain]) {
				await control(sandbox, 'POST', '/seed', { calls: calls - seeded, api_key: LIST_KEY });
			}
			seeded = calls;
			const count = calls.toLocaleString('en');
			if (here.includes('list')) {
				const jobs = variants(n8n, floor, plain, accounts.plainList, ['nodeAll', 'httpAll'], {
					job: 'list',
				});
				await measure(`list-${calls / 1000}k`, 'list', `Return All, ${count} calls`, calls, jobs);
			}
			if (here.includes('limit')) {
				const jobs = variants(n8n, floor, plain, accounts.plainList, ['nodeLimit', 'httpLimit'], {
					job: 'list',
					limit: 50,
				});
				await measure('limit', 'list', 'One page, Limit 50', 50, jobs);
			}
			if (here.includes('tls')) {
				const jobs = variants(n8n, floor, secure, accounts.tlsList, ['nodeAll', 'httpAll'], {
					job: 'list',
				});
				await measure('tls-list', 'tls', `Return All, ${count} calls, HTTPS`, calls, jobs);
			}
		}

		for (const sandbox of [plain, secure]) {
			await control(sandbox, 'POST', '/seed', { calls: TRANSCRIPT_CALLS, api_key: TRANSCRIPT_KEY });
		}
		const title = `Include Transcripts, ${TRANSCRIPT_CALLS} calls, ${LATENCY_MS} ms per request`;
		const latency = { latency_ms: LATENCY_MS };
		// The floor fetches transcripts with a fixed pool of 20, each 429 waited out as its Retry-After says.
		const transcriptJobs = [
			['transcripts', 'transcripts', plain, 'plainTranscripts', 'httpTranscripts', latency, title],
			[
				'rate-limit',
				'rate-limit',
				plain,
				'plainTranscripts',
				'httpTranscriptsRetry',
				{ ...latency, rate_limit_per_s: RATE_LIMIT },
				`${title}, at most ${RATE_LIMIT} requests/s`,
			],
			[
				'tls-transcripts',
				'tls',
				secure,
				'tlsTranscripts',
				'httpTranscripts',
				latency,
				`${title}, HTTPS`,
			],
		];
		for (const [id, section, sandbox, acc, http, faults, heading] of transcriptJobs) {
			if (!wanted(section)) continue;
			await control(sandbox, 'POST', '/faults', faults);
			const jobs = variants(n8n, floor, sandbox, accounts[acc], ['nodeTranscripts', http], {
				job: 'transcripts',
				concurrency: 20,
			});
			await measure(id, section, heading, TRANSCRIPT_CALLS, jobs);
			await control(sandbox, 'POST', '/faults', {});
		}
		process.stdout.write(report.render());
		process.stdout.write(renderTargets(report, { maxInFlight: MAX_IN_FLIGHT }));
	} finally {
		floor?.stop();
		await server?.stop();
		for (const sandbox of sandboxes) await sandbox.close();
		removeUserFolder(userFolder);
		fs.rmSync(work, { recursive: true, force: true });
	}
}

await main();
