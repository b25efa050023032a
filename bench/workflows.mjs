// The workflows the benchmark runs in n8n: each starts from a Webhook (the benchmark posts to it) and does
// one job, either with the Voice Agent node or the way a user builds it without the package: n8n's HTTP
// Request node with cursor pagination and a Split Out node, and one HTTP Request per call for transcripts.
import { randomUUID } from 'node:crypto';

const VOICE_AGENT = 'n8n-nodes-voice-agent.voiceAgent';

function webhook(path) {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

function voiceAgent(credential, parameters) {
	return {
		name: 'Voice Agent',
		type: VOICE_AGENT,
		typeVersion: 1,
		position: [200, 0],
		parameters: { resource: 'call', operation: 'getMany', ...parameters },
		credentials: { voiceAgentApi: { id: credential.id, name: credential.name } },
	};
}

/** n8n's HTTP Request node with the API key in a Header Auth credential, as users set it up. */
function httpRequest(name, x, credential, { path, query, pagination, settings = {} }) {
	return {
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [x, 0],
		parameters: {
			url: `${credential.baseUrl}${path}`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			sendQuery: true,
			queryParameters: {
				parameters: Object.entries(query).map(([name, value]) => ({ name, value })),
			},
			options: pagination ? { pagination: { pagination } } : {},
		},
		credentials: { httpHeaderAuth: credential.header },
		...settings,
	};
}

/** Cursor pagination as the HTTP Request node offers it: send `cursor` until the answer has none. */
const CURSOR_PAGINATION = {
	paginationMode: 'updateAParameterInEachRequest',
	parameters: {
		parameters: [{ type: 'qs', name: 'cursor', value: '={{ $response.body.cursor }}' }],
	},
	paginationCompleteWhen: 'other',
	completeExpression: '={{ !$response.body.cursor }}',
};

function splitOutCalls(x) {
	return {
		name: 'Split Out',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position: [x, 0],
		parameters: { fieldToSplitOut: 'calls', include: 'noOtherFields', options: {} },
	};
}

/** A job: its webhook path and its workflow (a Webhook, then `nodes` one after another). */
function chain(name, path, nodes) {
	const all = [webhook(path), ...nodes];
	const connections = {};
	for (let i = 0; i + 1 < all.length; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	const settings = { executionOrder: 'v1', saveDataSuccessExecution: 'none' };
	return { path, workflow: { name, nodes: all, connections, settings } };
}

/**
 * The benchmark's jobs against one sandbox account, by name, each `{ path, workflow }`. `credential`:
 * `{ id, name, baseUrl, header }`, where `header` names the Header Auth credential of the same key.
 * @param {string} prefix webhook paths start with it (one set of workflows per sandbox and account)
 */
export function workflowsFor(prefix, credential) {
	const listAll = (x) =>
		httpRequest('HTTP Request', x, credential, {
			path: '/calls',
			query: { limit: '100' },
			pagination: CURSOR_PAGINATION,
		});
	const byName = {
		nodeAll: chain('Voice Agent: Return All', `${prefix}-node-all`, [
			voiceAgent(credential, { returnAll: true }),
		]),
		nodeLimit: chain('Voice Agent: Limit 50', `${prefix}-node-limit`, [
			voiceAgent(credential, { returnAll: false, limit: 50 }),
		]),
		nodeTranscripts: chain('Voice Agent: Include Transcripts', `${prefix}-node-transcripts`, [
			voiceAgent(credential, { returnAll: true, options: { includeTranscripts: true } }),
		]),
		httpAll: chain('HTTP Request: cursor pagination', `${prefix}-http-all`, [
			listAll(200),
			splitOutCalls(400),
		]),
		httpLimit: chain('HTTP Request: one page of 50', `${prefix}-http-limit`, [
			httpRequest('HTTP Request', 200, credential, { path: '/calls', query: { limit: '50' } }),
			splitOutCalls(400),
		]),
		httpTranscripts: chain('HTTP Request: a request per call', `${prefix}-http-transcripts`, [
			listAll(200),
			splitOutCalls(400),
			httpRequest('Get Call', 600, credential, { path: '/call', query: { id: '={{ $json.id }}' } }),
		]),
		// What a user turns on when the service answers 429: n8n runs the whole node again.
		httpTranscriptsRetry: chain(
			'HTTP Request: a request per call, Retry On Fail',
			`${prefix}-http-transcripts-retry`,
			[
				listAll(200),
				splitOutCalls(400),
				httpRequest('Get Call', 600, credential, {
					path: '/call',
					query: { id: '={{ $json.id }}' },
					settings: { retryOnFail: true, maxTries: 5, waitBetweenTries: 1000 },
				}),
			],
		),
	};
	return byName;
}
