// A scripted OpenAI-compatible chat model, so n8n's AI Agent runs offline and does exactly what a test
// says: an `openAiApi` credential whose Base URL points here drives the OpenAI Chat Model node (with
// *Use Responses API* off). Node built-ins only.
//
// POST /chat/completions (also under /v1): a request whose messages hold no tool result is answered
// with the scripted tool calls, all in one assistant message (one agent step); once the messages hold
// the tool results (role `tool`), with the final answer. Everything received is recorded.

import http from 'node:http';

/**
 * @typedef {{ id: string, name: string, arguments: Record<string, unknown> }} ScriptedToolCall
 * @typedef {{ toolCallId: string, name: string | undefined, arguments: Record<string, unknown> | undefined,
 *   content: string }} ToolResult what the model was told for one of its tool calls
 */

const FINAL_ANSWER = 'Done.';

function completion(message, finishReason) {
	return {
		id: `chatcmpl-scripted-${Date.now()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: 'scripted',
		choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
	};
}

/** Tool message content as text (a string, or the parts of a multi-part message). */
function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => part?.text ?? '').join('');
	return JSON.stringify(content ?? null);
}

/**
 * Starts the model server on a free port of 127.0.0.1.
 * `script(toolArguments)` sets what the next agent step asks for: one tool call per entry (the
 * arguments of the tool the request offers first, or of `tool` when given), all in one message.
 * `toolResults()` lists what the model was told for its calls, in the order of the tool calls;
 * `requests()` every request body received. `url` is the Base URL for the credential (ends in /v1).
 */
export async function startScriptedModel() {
	let toolArguments = [];
	let toolName;
	let calls = [];
	const received = [];

	function answer(body) {
		received.push(body);
		const messages = Array.isArray(body.messages) ? body.messages : [];
		if (messages.some((message) => message?.role === 'tool')) {
			return completion({ role: 'assistant', content: FINAL_ANSWER }, 'stop');
		}
		const offered = (body.tools ?? []).map((tool) => tool?.function?.name).filter(Boolean);
		const name = toolName ?? offered[0];
		if (!name || toolArguments.length === 0) {
			return completion({ role: 'assistant', content: FINAL_ANSWER }, 'stop');
		}
		calls = toolArguments.map((args, index) => ({
			id: `call_scripted_${received.length}_${index}`,
			name,
			arguments: args,
		}));
		const toolCalls = calls.map((call) => ({
			id: call.id,
			type: 'function',
			function: { name: call.name, arguments: JSON.stringify(call.arguments) },
		}));
		return completion({ role: 'assistant', content: null, tool_calls: toolCalls }, 'tool_calls');
	}

	const server = http.createServer((request, response) => {
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			const route = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/^\/v1/, '');
			const send = (status, value) => {
				response.writeHead(status, { 'content-type': 'application/json' });
				response.end(JSON.stringify(value));
			};
			if (request.method !== 'POST' || route !== '/chat/completions') {
				return send(404, { error: { message: `No route ${request.method} ${request.url}` } });
			}
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				return send(400, { error: { message: 'The body is not JSON' } });
			}
			if (body.stream) return send(400, { error: { message: 'Streaming is not scripted' } });
			send(200, answer(body));
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	const { port } = server.address();

	return {
		url: `http://127.0.0.1:${port}/v1`,
		/** @param {Record<string, unknown>[]} args @param {{ tool?: string }} [options] */
		script(args, { tool } = {}) {
			toolArguments = args;
			toolName = tool;
			calls = [];
			received.length = 0;
		},
		/** @returns {ToolResult[]} */
		toolResults() {
			const last = received.findLast((body) =>
				(body.messages ?? []).some((message) => message?.role === 'tool'),
			);
			const told = (last?.messages ?? []).filter((message) => message?.role === 'tool');
			return calls.map((call) => {
				const message = told.find((candidate) => candidate.tool_call_id === call.id);
				return {
					toolCallId: call.id,
					name: call.name,
					arguments: call.arguments,
					content: message === undefined ? undefined : textOf(message.content),
				};
			});
		},
		requests: () => [...received],
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
