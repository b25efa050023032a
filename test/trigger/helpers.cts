/** Helpers shared by the Voice Agent Trigger suites. */
import type { RecordedRequest, TestSandbox } from '../support/sandbox.cts';
import { agentById, TriggerHarness, type TriggerOptions } from '../support/trigger.cts';
import type { INodeParameters } from 'n8n-workflow';

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const CHECK_ORDER_TOOL = {
	type: 'function',
	function: {
		name: 'check_order',
		description: 'Looks up an order',
		parameters: {
			type: 'object',
			properties: { order_id: { type: 'string' } },
			required: ['order_id'],
		},
	},
};

/** Creates an agent through the API (area code 415 unless given) and returns it. */
export async function createAgent(sandbox: TestSandbox, fields: Record<string, unknown>) {
	const { status, body } = await sandbox.api('POST', '/agent', {
		body: { area_code: '415', ...fields },
	});
	if (status !== 200) throw new Error(`POST /agent answered ${status}: ${JSON.stringify(body)}`);
	return body;
}

/** The agent as the API answers it now, or undefined when it does not exist. */
export async function getAgent(sandbox: TestSandbox, id: string) {
	const { status, body } = await sandbox.api('GET', '/agent', { query: { id } });
	if (status === 404) return undefined;
	if (status !== 200) throw new Error(`GET /agent answered ${status}: ${JSON.stringify(body)}`);
	return body;
}

/** Someone else (another tool, the dashboard) sets the agent's webhook through the API. */
export async function setWebhookElsewhere(sandbox: TestSandbox, name: string, webhook: string) {
	const { status, body } = await sandbox.api('POST', '/agent', { body: { name, webhook } });
	if (status !== 200) throw new Error(`POST /agent answered ${status}: ${JSON.stringify(body)}`);
}

/** Places a call from the agent through the API. */
export async function placeCall(
	sandbox: TestSandbox,
	agent: { phone_number: string },
	to = '+14155550123',
) {
	const { status, body } = await sandbox.api('POST', '/call', {
		body: { from: agent.phone_number, to },
	});
	if (status !== 200) throw new Error(`POST /call answered ${status}: ${JSON.stringify(body)}`);
	return body;
}

export async function getCall(sandbox: TestSandbox, id: string) {
	const { status, body } = await sandbox.api('GET', '/call', { query: { id } });
	if (status !== 200) throw new Error(`GET /call answered ${status}: ${JSON.stringify(body)}`);
	return body;
}

/** The agent upserts (POST /v1/agent) in the sandbox's request log. */
export async function agentUpserts(sandbox: TestSandbox): Promise<RecordedRequest[]> {
	return (await sandbox.requests()).filter(
		(request) => request.method === 'POST' && request.path === '/v1/agent',
	);
}

/** The URL a registered webhook points at without its query, and its query parameters. */
export function splitWebhook(webhook: string): { base: string; params: Record<string, string> } {
	const url = new URL(webhook);
	return { base: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}

/** Bits of randomness a token of hex or base64url characters can carry. */
export function tokenBits(token: string): number {
	if (/^[0-9a-f]+$/i.test(token)) return token.length * 4;
	if (/^[A-Za-z0-9_-]+$/.test(token)) return token.length * 6;
	return 0;
}

/** Starts trigger harnesses and closes every one of them (afterEach). */
export class Triggers {
	private readonly started: TriggerHarness[] = [];

	constructor(private readonly sandbox: () => TestSandbox) {}

	async start(
		agentId: string,
		parameters: INodeParameters = {},
		options: Partial<Omit<TriggerOptions, 'credentials' | 'parameters'>> = {},
		credentials: Partial<TriggerOptions['credentials']> = {},
	): Promise<TriggerHarness> {
		const sandbox = this.sandbox();
		const trigger = await TriggerHarness.start({
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, ...credentials },
			parameters: { agent: agentById(agentId), ...parameters },
			...options,
		});
		this.started.push(trigger);
		return trigger;
	}

	async closeAll(): Promise<void> {
		await Promise.all(this.started.splice(0).map((trigger) => trigger.close()));
	}
}
