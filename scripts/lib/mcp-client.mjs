// A minimal MCP client over Streamable HTTP, as an MCP client (Claude Desktop, an IDE) talks to n8n's MCP
// Server Trigger: JSON-RPC 2.0 requests POSTed to one URL; the server answers each with JSON or with a
// `text/event-stream` whose `data:` lines carry the answer. `initialize` opens a session (the
// `mcp-session-id` header), every later message carries it. Node built-ins only.

/** The protocol version this client speaks (the servers n8n bundles accept it). */
const PROTOCOL_VERSION = '2025-03-26';

/**
 * Opens a session with the MCP server at `url`: `initialize`, then `notifications/initialized`.
 * Returns `{ sessionId, server, listTools(), callTool(name, args), request(method, params) }`.
 * @param {string} url
 * @param {{ name?: string, timeoutMs?: number }} [options]
 */
export async function connectMcp(url, { name = 'voice-agent-e2e', timeoutMs = 60_000 } = {}) {
	let nextId = 1;
	let sessionId;

	async function post(message) {
		const headers = {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			'mcp-protocol-version': PROTOCOL_VERSION,
		};
		if (sessionId) headers['mcp-session-id'] = sessionId;
		const response = await fetch(url, {
			method: 'POST',
			headers,
			body: JSON.stringify(message),
			signal: AbortSignal.timeout(timeoutMs),
		});
		return response;
	}

	/** Sends a JSON-RPC request and returns its `result`; a JSON-RPC error throws. */
	async function request(method, params = {}) {
		const id = nextId++;
		const response = await post({ jsonrpc: '2.0', id, method, params });
		const text = await response.text();
		if (!response.ok) {
			throw new Error(`MCP ${method} answered HTTP ${response.status}: ${text.slice(0, 500)}`);
		}
		sessionId ??= response.headers.get('mcp-session-id') ?? undefined;
		const answer = answerWithId(response.headers.get('content-type') ?? '', text, id);
		if (!answer)
			throw new Error(`MCP ${method}: no answer with id ${id} in: ${text.slice(0, 500)}`);
		if (answer.error) {
			const error = new Error(`MCP ${method} failed: ${JSON.stringify(answer.error)}`);
			error.rpcError = answer.error;
			throw error;
		}
		return answer.result;
	}

	async function notify(method, params = {}) {
		const response = await post({ jsonrpc: '2.0', method, params });
		await response.text();
		if (!response.ok) throw new Error(`MCP ${method} answered HTTP ${response.status}`);
	}

	const initialized = await request('initialize', {
		protocolVersion: PROTOCOL_VERSION,
		capabilities: {},
		clientInfo: { name, version: '1.0.0' },
	});
	if (!sessionId) throw new Error('MCP initialize: the server gave no mcp-session-id');
	await notify('notifications/initialized');

	return {
		sessionId,
		server: initialized,
		request,
		/** `tools/list`: the tools as the client sees them (name, description, inputSchema). */
		listTools: async () => (await request('tools/list')).tools,
		/** `tools/call`: `{ content: [{ type, text }], isError? }`. */
		callTool: (toolName, args) => request('tools/call', { name: toolName, arguments: args }),
	};
}

/** The JSON-RPC message answering `id`, from a JSON body or from the `data:` lines of an event stream. */
function answerWithId(contentType, text, id) {
	const messages = contentType.includes('text/event-stream')
		? text
				.split(/\r?\n\r?\n/)
				.map((event) =>
					event
						.split(/\r?\n/)
						.filter((line) => line.startsWith('data:'))
						.map((line) => line.slice(5).trimStart())
						.join('\n'),
				)
				.filter((data) => data.length > 0)
				.map((data) => JSON.parse(data))
		: [JSON.parse(text)];
	return messages.flat().find((message) => message?.id === id);
}

/** The text of a `tools/call` result (its text parts joined). */
export function toolResultText(result) {
	return (result.content ?? [])
		.filter((part) => part.type === 'text')
		.map((part) => part.text)
		.join('\n');
}
