// End-to-end: the API key reaches the Base URL's origin only, in the real pinned n8n 2.41.1 and
// 1.123.x with the packed package. A Base URL that redirects to another origin never delivers the key
// there (a second local server counts Authorization headers) and the item fails saying why; n8n's HTTP
// Request node with Predefined Credential Type → Voice Agent API cannot send the key anywhere: in 2.x
// n8n refuses it the credential (restrictToSupportedNodes), in 1.x, which has no such rule, the
// credential's authenticate refuses any other origin and turns redirects off.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { executeWorkflow, importCredentials, importWorkflows } from '../../scripts/lib/n8n-cli.mjs';
import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { nodeOutput } from '../../scripts/lib/run-data.mjs';
import { runtimePaths } from '../../scripts/lib/runtime-folder.mjs';
import { requestSandbox } from '../../scripts/lib/sandbox-client.mjs';
import { installedPackage, voiceAgentCredential } from './support/installed-package.mjs';
import { startEmptySandbox } from './support/sandbox-client.mjs';

const API_KEY = 'e2e-safety-key-Zq81mW';
const HINT = 'set the Base URL to the API address including /v1, e.g. https://api.example.com/v1';
const log = (line) => console.log(`[e2e] ${line}`);

/** Listens on a free loopback port: `{ origin, close }`. */
async function listen(handler) {
	const server = http.createServer(handler);
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		origin: `http://127.0.0.1:${server.address().port}`,
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** The other origin: records every request and every Authorization header it receives. */
async function startRecordingServer() {
	const requests = [];
	const authorizations = [];
	const local = await listen((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		if (request.headers.authorization) authorizations.push(request.headers.authorization);
		request.resume();
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(JSON.stringify({ agents: [], num_items: 0, cursor: null }));
	});
	return { ...local, requests, authorizations };
}

/** A Base URL whose server answers every request with a 307 to `location`. */
async function startRedirectingServer(location) {
	const requests = [];
	const local = await listen((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		request.resume();
		response.writeHead(307, { location, 'content-type': 'text/plain' });
		response.end('Moved');
	});
	return { ...local, requests };
}

const manualTrigger = {
	name: 'Run',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function workflowOf(name, node) {
	return {
		name,
		nodes: [manualTrigger, { position: [220, 0], ...node }],
		connections: { Run: { main: [[{ node: node.name, type: 'main', index: 0 }]] } },
	};
}

/** n8n's HTTP Request node with Predefined Credential Type → Voice Agent API. */
function httpRequestNode(url, credential) {
	return {
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'GET',
			url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'voiceAgentApi',
			options: {},
		},
		credentials: { voiceAgentApi: credential },
	};
}

/** The error the named node stopped with, failing when it did not fail. */
function nodeError(run, nodeName) {
	const task = run.data.resultData.runData[nodeName]?.[0];
	const error = task?.error ?? run.data.resultData.error;
	assert.ok(error, `${nodeName} did not fail: ${JSON.stringify(task?.data ?? null).slice(0, 300)}`);
	return error;
}

let sandbox;
const servers = [];

before(async () => {
	sandbox = await startEmptySandbox(API_KEY);
});

after(async () => {
	await Promise.all(servers.map((server) => server.close()));
	await sandbox?.close();
});

for (const version of ['2.41.1', '1.123.x']) {
	describe(
		`The API key stays on the Base URL's origin in n8n ${version}`,
		{ timeout: 900_000 },
		() => {
			let runtime;
			let setup;
			let userFolder;
			let other;
			let redirecting;
			const credentials = {
				sandbox: { id: 'VoiceAgentSafeSbx', name: 'Voice Agent (sandbox)' },
				redirecting: { id: 'VoiceAgentRedirct', name: 'Voice Agent (redirecting Base URL)' },
			};

			before(async () => {
				setup = await installedPackage({ version });
				({ userFolder } = setup);
				runtime = runtimePaths(version);
				other = await startRecordingServer();
				redirecting = await startRedirectingServer(`${other.origin}/v1/agents?token=in-query`);
				servers.push(other, redirecting);
				await importCredentials(
					userFolder,
					[
						voiceAgentCredential(credentials.sandbox, API_KEY, sandbox.baseUrl),
						voiceAgentCredential(credentials.redirecting, API_KEY, `${redirecting.origin}/v1`),
					],
					{ runtime },
				);
			});

			after(() => {
				setup?.remove();
			});

			/** Imports and runs a one-node workflow (after a Manual Trigger), returning its run. */
			async function run(name, node) {
				other.requests.length = 0;
				other.authorizations.length = 0;
				redirecting.requests.length = 0;
				const [id] = await importWorkflows(userFolder, [workflowOf(name, node)], { runtime });
				const started = Date.now();
				const result = await executeWorkflow(userFolder, id, { runtime });
				log(`n8n ${version}, ${name}: n8n execute took ${Date.now() - started} ms`);
				return result;
			}

			test("the package's own node uses the credential on the sandbox's origin", async () => {
				const seeded = await requestSandbox(sandbox, API_KEY, 'POST', '/agent', {
					name: `Safety ${version}`,
					area_code: '415',
				});
				const result = await run('E2E: the Voice Agent node with its credential', {
					name: 'Voice Agent',
					type: 'n8n-nodes-voice-agent.voiceAgent',
					typeVersion: 1,
					parameters: { resource: 'agent', operation: 'getMany', returnAll: true },
					credentials: { voiceAgentApi: credentials.sandbox },
				});

				assert.equal(result.data.resultData.error, undefined);
				const ids = nodeOutput(result, 'Voice Agent').map((agent) => agent.id);
				assert.ok(ids.includes(seeded.id), `the agents listed: ${ids.join(', ')}`);
			});

			test('a Base URL answering 307 to another origin: the item fails saying why; the other origin gets nothing', async () => {
				const result = await run('E2E: redirecting Base URL', {
					name: 'Voice Agent',
					type: 'n8n-nodes-voice-agent.voiceAgent',
					typeVersion: 1,
					parameters: { resource: 'agent', operation: 'getMany', returnAll: true },
					credentials: { voiceAgentApi: credentials.redirecting },
				});

				assert.equal(
					nodeError(result, 'Voice Agent').message,
					`The Base URL answered GET /agents with a redirect (307) to ${other.origin}/v1/agents: redirects are not followed, so the API key was not sent there; ${HINT}`,
				);
				assert.deepEqual(redirecting.requests, ['GET /v1/agents?limit=100']);
				assert.deepEqual(other.authorizations, []);
				assert.deepEqual(other.requests, []);
			});

			test("HTTP Request node, Predefined Credential Type → Voice Agent API, another server's URL: the node fails, the server gets no key", async () => {
				const result = await run(
					'E2E: HTTP Request with the Voice Agent credential',
					httpRequestNode(`${other.origin}/collect`, credentials.sandbox),
				);

				const error = nodeError(result, 'HTTP Request');
				log(`n8n ${version}, HTTP Request refused: ${error.message}`);
				assert.match(
					error.message,
					version.startsWith('2.')
						? /Credential type "voiceAgentApi" is restricted to specific nodes/
						: /The Voice Agent API credential sends its API key only to its Base URL's origin \(http:\/\/127\.0\.0\.1:\d+\); this request goes elsewhere, so it was not sent/,
				);
				assert.deepEqual(other.authorizations, []);
				assert.deepEqual(other.requests, []);
				assert.ok(!JSON.stringify(result).includes(API_KEY), 'the run shows the API key');
			});

			test('HTTP Request node on the Base URL itself, which redirects elsewhere: the other origin gets no key', async () => {
				const result = await run(
					'E2E: HTTP Request to a redirecting Base URL',
					httpRequestNode(`${redirecting.origin}/v1/agents`, credentials.redirecting),
				);

				assert.deepEqual(other.authorizations, []);
				assert.deepEqual(other.requests, []);
				if (version.startsWith('2.')) {
					// n8n 2.x does not let the HTTP Request node have the credential at all.
					assert.match(
						nodeError(result, 'HTTP Request').message,
						/Credential type "voiceAgentApi" is restricted to specific nodes/,
					);
					assert.deepEqual(redirecting.requests, []);
				} else {
					// n8n 1.x: the credential's authenticate allowed the Base URL and turned redirects off.
					assert.deepEqual(redirecting.requests, ['GET /v1/agents']);
				}
			});

			test('n8n start: Test connection with the redirecting Base URL fails saying why, the other origin gets nothing; in 2.x saving restricts the credential to the package’s nodes', async () => {
				const server = await startN8nServer(userFolder, { runtime });
				try {
					await server.setupOwnerAndLogin();
					other.requests.length = 0;
					other.authorizations.length = 0;
					redirecting.requests.length = 0;
					const baseUrl = `${redirecting.origin}/v1`;
					const result = await server.rest.request('POST', '/rest/credentials/test', {
						credentials: voiceAgentCredential(credentials.redirecting, API_KEY, baseUrl),
					});
					assert.deepEqual(result, {
						status: 'Error',
						message: `${baseUrl} answered GET /agents with a redirect (307) to ${other.origin}/v1/agents: redirects are not followed, so the API key was not sent there; ${HINT}`,
					});
					assert.deepEqual(redirecting.requests, ['GET /v1/agents?limit=1']);
					assert.deepEqual(other.authorizations, []);
					assert.deepEqual(other.requests, []);

					if (version.startsWith('2.')) await expectSavingRestricted(server);
				} finally {
					await server.stop();
				}
			});

			/**
			 * n8n 2.x: what n8n compares are the nodes' full types, from the nodes that declare the
			 * credential, and the AI-tool variant it adds itself. Saving a workflow checks the list the
			 * engine checks.
			 */
			async function expectSavingRestricted(server) {
				const save = (name, node) =>
					server.rest.request('POST', '/rest/workflows', {
						...workflowOf(name, node),
						settings: { executionOrder: 'v1' },
					});
				const tool = await save('E2E: the Voice Agent as a tool', {
					name: 'Voice Agent Tool',
					type: 'n8n-nodes-voice-agent.voiceAgentTool',
					typeVersion: 1,
					parameters: { resource: 'agent', operation: 'getMany', returnAll: true },
					credentials: { voiceAgentApi: credentials.sandbox },
				});
				assert.ok(tool.id, 'the tool workflow was not saved');

				const refused = await save(
					'E2E: HTTP Request with the Voice Agent credential',
					httpRequestNode(`${other.origin}/collect`, credentials.sandbox),
				).then(
					() => assert.fail('n8n saved the HTTP Request node with the Voice Agent credential'),
					(error) => error,
				);
				assert.equal(refused.status, 400);
				const allowed = [
					'n8n-nodes-voice-agent.voiceAgent',
					'n8n-nodes-voice-agent.voiceAgentTrigger',
					'n8n-nodes-voice-agent.voiceAgentCallHistoryTrigger',
					'n8n-nodes-voice-agent.voiceAgentTool',
				];
				assert.equal(
					refused.body.message,
					`Cannot save workflow: Node "HTTP Request" (n8n-nodes-base.httpRequest) cannot use credential type "voiceAgentApi" — it is restricted to: ${allowed.join(', ')}.`,
				);
			}
		},
	);
}
