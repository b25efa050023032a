/** Helpers of the Voice Agent Trigger suites: the webhook the trigger registers, as the service holds it. */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

import { createRequire } from 'node:module';

import { upsertAgent, wire, type WireRequest } from '../../support/api.cts';
import type { TestSandbox } from '../../support/sandbox.cts';

/** Someone else (another tool, the dashboard) sets the agent's webhook through the API. */
export async function setWebhookElsewhere(sandbox: TestSandbox, name: string, webhook: string) {
	await upsertAgent(sandbox, { name, webhook });
}

/** The agent upserts (POST /v1/agent) in the sandbox's request log. */
export async function agentUpserts(sandbox: TestSandbox): Promise<WireRequest[]> {
	return (await wire(sandbox)).filter(
		(request) => request.method === 'POST' && request.path === '/agent',
	);
}

/** The URL a registered webhook points at without its query, and its query parameters. */
export function splitWebhook(webhook: string): { base: string; params: Record<string, string> } {
	const url = new URL(webhook);
	return { base: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}

/** What the trigger saves of a token: its SHA-256 (hex). */
export function hashOf(token: string): string {
	return createHash('sha256').update(token).digest('hex');
}

/** Bits of randomness a token of hex or base64url characters can carry. */
export function tokenBits(token: string): number {
	if (/^[0-9a-f]+$/i.test(token)) return token.length * 4;
	if (/^[A-Za-z0-9_-]+$/.test(token)) return token.length * 6;
	return 0;
}

/**
 * What the trigger logs at n8n's warn level during a test: n8n-core's node contexts log through the
 * Logger in n8n's DI container, the same one n8n's own server uses.
 */
export function useWarnings(): { messages(): string[]; metadata(): unknown[] } {
	// n8n-core's own copies of n8n's DI container and Logger, not the package's top-level ones.
	const fromCore = createRequire(require.resolve('n8n-core'));
	const { Container } = fromCore('@n8n/di') as typeof import('@n8n/di');
	const { Logger } = fromCore('@n8n/backend-common') as typeof import('@n8n/backend-common');
	let spy: jest.SpyInstance | undefined;
	beforeEach(() => {
		spy = jest.spyOn(Container.get(Logger), 'warn');
	});
	afterEach(() => spy?.mockRestore());
	return {
		messages: () => (spy?.mock.calls ?? []).map((call) => String(call[0])),
		metadata: () => (spy?.mock.calls ?? []).map((call) => call[1] as unknown),
	};
}

/**
 * Opens a previous webhook as the trigger seals it (AES-256-GCM, key HKDF-SHA256 of the API key, bound
 * to the registration's URL), written here from that description alone; undefined when it does not open.
 */
function sealingKey(apiKey: string): Buffer {
	return Buffer.from(hkdfSync('sha256', apiKey, 'n8n-nodes-voice-agent', 'previous webhook', 32));
}

/** Seals a webhook the same way, with any API key (e.g. one the credential no longer has). */
export function sealWith(apiKey: string, ownUrl: string, webhook: string): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', sealingKey(apiKey), iv);
	cipher.setAAD(Buffer.from(ownUrl));
	const data = Buffer.concat([cipher.update(webhook, 'utf8'), cipher.final()]);
	return ['v1', iv, cipher.getAuthTag(), data]
		.map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
		.join('.');
}

export function openSealed(apiKey: string, ownUrl: string, sealed: string): string | undefined {
	const [version, iv, tag, data] = sealed.split('.');
	if (version !== 'v1') return undefined;
	const key = Buffer.from(
		hkdfSync('sha256', apiKey, 'n8n-nodes-voice-agent', 'previous webhook', 32),
	);
	try {
		const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
		decipher.setAAD(Buffer.from(ownUrl));
		decipher.setAuthTag(Buffer.from(tag, 'base64url'));
		return Buffer.concat([
			decipher.update(Buffer.from(data, 'base64url')),
			decipher.final(),
		]).toString('utf8');
	} catch {
		return undefined;
	}
}

/** A moment of a live call's life: connected (in progress) or ended. */
export type LiveCallMoment = 'connected' | 'ended';

/**
 * A call row as the live service's events carry it (numeric ids, no status, the zero time for what has not
 * happened yet, chat-message transcripts whose first entry is the agent's prompt).
 */
export function liveCallRow(
	overrides: Record<string, unknown> = {},
	moment: LiveCallMoment = 'ended',
): Record<string, any> {
	const ended = moment === 'ended';
	return {
		id: 6000,
		created_at: '2026-11-26T10:00:00.120431Z',
		updated_at: ended ? '2026-11-26T10:01:20.5Z' : '2026-11-26T10:00:05.3Z',
		deleted_at: null,
		user_id: 7,
		agent_id: 42,
		twilio_sid: 'CA0f3e',
		recording_sid: ended ? 'RE0f3e' : '',
		client_number: '+14155550123',
		context: '',
		in_progress: !ended,
		started_at: '2026-11-26T10:00:05.3Z',
		ended_at: ended ? '2026-11-26T10:01:20.5Z' : '0001-01-01T00:00:00Z',
		time_seconds: ended ? 75.2 : 0,
		sentiment: ended ? 7 : 0,
		average_latency_ms: ended ? 610 : 0,
		user_speaks_first: false,
		disconnect_reason: ended ? 'user_hangup' : '',
		transcript: ended
			? [
					{ role: 'system', content: 'You are the order desk.' },
					{ role: 'assistant', content: 'Hello, this is Orders' },
					{ role: 'user', content: 'Where is my order?' },
				]
			: null,
		...overrides,
	};
}

/** An OpenAI tool call as the live service's tool_call and action events carry it. */
export function liveToolCall(id: string, name: string, args: string) {
	return { id, type: 'function', function: { name, arguments: args } };
}
