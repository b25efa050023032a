/**
 * Drives the Voice Agent Trigger the way n8n does, over real HTTP.
 *
 * What is real:
 * - the trigger node, loaded from the built `dist/` by n8n-core's PackageDirectoryLoader (via n8n.cts);
 * - n8n-workflow's `Workflow` (parameter defaults, node static data with its change tracking,
 *   expression resolution of the webhook's response mode);
 * - n8n-core's `HookContext` for the webhook methods (checkExists / create / delete) and `WebhookContext`
 *   for `webhook()`, with the credential applied by the TestCredentialsHelper from n8n.cts;
 * - the HTTP on both sides: the node talks to the sandbox over HTTP, and the sandbox POSTs its events to
 *   the URL the node registered, served by a real HTTP server on 127.0.0.1.
 *
 * What stands in for n8n's server (the n8n CLI package is not a dependency of this package), following
 * its code (packages/cli: active-workflow-manager.ts, webhooks/test-webhooks.ts, webhooks/webhook-helpers.ts,
 * middlewares/body-parser.ts, workflows/workflow-static-data.service.ts):
 * - the database: the workflow's static data is kept as JSON (`savedStaticData`). Every operation builds a
 *   new `Workflow` from it, as n8n does, and writes it back only when n8n would: when
 *   `staticData.__dataChanged` is true after activation / deactivation.
 * - activation (ActiveWorkflowManager): checkExists, then create when it answers false, mode 'trigger';
 *   when either throws, the webhooks are removed again (delete with the saved static data) and the error
 *   is what the user sees. Deactivation: delete, mode 'internal'.
 * - "Listen for test event" (TestWebhooks): a Workflow with empty static data; checkExists / create in mode
 *   'manual'; the static data they leave is kept with the test registration and given to webhook() as the
 *   workflow's test static data. After the first event that starts an execution, n8n removes the test
 *   webhook (delete) and the test URL answers 404 again.
 * - the webhook server: `POST /webhook/<webhookId>/events` (production) and `/webhook-test/...` (test);
 *   the body parsed as n8n's body parser does (JSON, text/plain; unparsable JSON is a 422; no body is {});
 *   an express-like request / response for the node; then the answer per response mode as n8n's webhook
 *   helpers give it.
 * - the rest of the workflow: an item the node emits is recorded as one started execution. In the response
 *   modes lastNode / responseNode, n8n answers the service with what the workflow produced; the test
 *   supplies that answer (`workflowAnswer`), e.g. the result of a tool call.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ExecutionLifecycleHooks, HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import {
	additionalDataFor,
	CREDENTIAL_NAME,
	loadPackage,
	PACKAGE_NAME,
	type LoadedPackage,
	type VoiceAgentCredentials,
} from './n8n.cts';
import { sleep } from './wait.cts';

export const TRIGGER_TYPE = `${PACKAGE_NAME}.voiceAgentTrigger`;
export const TRIGGER_NODE_NAME = 'Voice Agent Trigger';
/** The node's webhookId, as n8n assigns one to every webhook node when it is added to a workflow. */
export const WEBHOOK_ID = '6c1d0f3e-2b7a-4c59-9e8d-1f0a2b3c4d5e';
const WORKFLOW_ID = 'Vx7Jq2LmP9sR4tUw';
const STATIC_DATA_KEY = `node:${TRIGGER_NODE_NAME}`;

export type Registration = { secret: string; agentId: string; previousWebhook: string };
export type WebhookKind = 'production' | 'test';
export type ResponseMode = 'onReceived' | 'lastNode' | 'responseNode';

/** One request that reached the receiver, and how it was answered. */
export interface ReceivedRequest {
	kind: WebhookKind;
	query: Record<string, string | string[]>;
	/** What n8n's body parser made of the body. */
	body: unknown;
	status: number;
	/** The answer as sent, parsed when it is JSON. */
	response: unknown;
	/** What webhook() threw, if it did. */
	error?: Error;
}

/** A workflow execution the trigger started: the items its output carried. */
export interface StartedExecution {
	kind: WebhookKind;
	items: IDataObject[];
}

export interface TriggerOptions {
	credentials: VoiceAgentCredentials;
	/** The node's parameters as the user set them; the rest get their defaults as in n8n. */
	parameters: INodeParameters;
	/**
	 * Stands in for the workflow behind the trigger in the response modes lastNode / responseNode:
	 * the JSON the last node produced (n8n answers with the first item's JSON) or what a Respond to
	 * Webhook node sends. A throw is a failed execution, which n8n answers with a 500.
	 */
	workflowAnswer?: (items: IDataObject[], responseMode: ResponseMode) => IDataObject;
}

/** A resource locator value for the agent parameter, as the "By ID" mode stores it. */
export function agentById(id: string): INodeParameters {
	return { __rl: true, mode: 'id', value: id } as unknown as INodeParameters;
}

/** A JSON copy, as a database or a cache holds data. */
function jsonCopy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/** The query as express parses simple query strings: a repeated name becomes an array. */
function parseQuery(search: URLSearchParams): Record<string, string | string[]> {
	const query: Record<string, string | string[]> = {};
	for (const [name, value] of search) {
		const existing = query[name];
		query[name] =
			existing === undefined
				? value
				: [...(Array.isArray(existing) ? existing : [existing]), value];
	}
	return query;
}

/** A Voice Agent Trigger node in a one-node workflow, with the HTTP server its webhook URLs point at. */
export class TriggerHarness {
	readonly received: ReceivedRequest[] = [];
	readonly executions: StartedExecution[] = [];
	/** Errors of delete while n8n removed the production webhook (n8n only logs them). */
	readonly removalErrors: Error[] = [];
	/** The workflow's static data as n8n's database holds it. */
	private savedStaticData: IDataObject = {};
	/** The static data a test webhook registration carries while n8n listens for a test event. */
	private testRegistration: { staticData: IDataObject } | undefined;
	/** Whether the workflow is active: n8n serves its production URL only then. */
	private active = false;
	private parameters: INodeParameters;
	private readonly nodeType: INodeType;
	private failuresToAnswer = 0;
	private readonly background = new Set<Promise<unknown>>();
	private closed: Promise<void> | undefined;

	private constructor(
		private readonly server: Server,
		readonly origin: string,
		private readonly pkg: LoadedPackage,
		private readonly options: TriggerOptions,
	) {
		this.nodeType = pkg.node(TRIGGER_TYPE);
		this.parameters = options.parameters;
		server.on('request', (request: IncomingMessage, response: ServerResponse) => {
			this.handle(request, response).catch((error: unknown) => {
				if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ message: `Receiver failure: ${String(error)}` }));
			});
		});
	}

	static async start(options: TriggerOptions): Promise<TriggerHarness> {
		const pkg = await loadPackage();
		const server = createServer();
		server.listen(0, '127.0.0.1');
		await once(server, 'listening');
		const { port } = server.address() as AddressInfo;
		return new TriggerHarness(server, `http://127.0.0.1:${port}`, pkg, options);
	}

	/** The workflow as n8n builds it from its stored form; parameters get their defaults. */
	private workflowWith(staticData: IDataObject): Workflow {
		const node: INode = {
			id: 'a3c1e7f0-0000-4000-8000-000000000002',
			name: TRIGGER_NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			parameters: jsonCopy(this.parameters),
			credentials: { [CREDENTIAL_NAME]: { id: '1', name: 'Voice Agent account' } },
		};
		return new Workflow({
			id: WORKFLOW_ID,
			name: 'Voice Agent events',
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: this.pkg.nodeTypes,
			settings: {},
			staticData: jsonCopy(staticData),
		});
	}

	private static nodeOf(workflow: Workflow): INode {
		return workflow.getNode(TRIGGER_NODE_NAME) as INode;
	}

	/** The node's parameters as n8n sees them, defaults included. */
	get nodeParameters(): INodeParameters {
		return TriggerHarness.nodeOf(this.workflowWith({})).parameters;
	}

	/** The webhook URL n8n gives the node, without the token the node adds. */
	url(kind: WebhookKind): string {
		return `${this.origin}/${kind === 'test' ? 'webhook-test' : 'webhook'}/${WEBHOOK_ID}/events`;
	}

	/**
	 * The node's registrations: for 'production' as saved with the workflow, for 'test' as the test
	 * webhook registration carries them while n8n listens.
	 */
	registrations(kind: WebhookKind = 'production'): Record<string, Registration> {
		const staticData =
			kind === 'production' ? this.savedStaticData : (this.testRegistration?.staticData ?? {});
		const nodeData = (staticData[STATIC_DATA_KEY] ?? {}) as IDataObject;
		return jsonCopy(nodeData.registrations ?? {}) as Record<string, Registration>;
	}

	/** Whether n8n is listening for a test event. */
	get listening(): boolean {
		return this.testRegistration !== undefined;
	}

	/** Saving the workflow in the editor with other parameters; the static data stays. */
	setParameters(parameters: INodeParameters): void {
		this.parameters = parameters;
	}

	/** Answers the next `count` requests with 503 before the node sees them (n8n briefly unavailable). */
	failNextRequests(count: number): void {
		this.failuresToAnswer = count;
	}

	private additionalData(
		workflow: Workflow,
		mode: WorkflowExecuteMode,
	): IWorkflowExecuteAdditionalData {
		const hooks = new ExecutionLifecycleHooks(mode, 'trigger-test-execution', {
			id: workflow.id,
			name: workflow.name,
			nodes: [TriggerHarness.nodeOf(workflow)],
			connections: {},
			active: false,
			settings: {},
		} as unknown as ConstructorParameters<typeof ExecutionLifecycleHooks>[2]);
		const data = additionalDataFor(this.pkg, this.options.credentials, hooks);
		data.webhookBaseUrl = `${this.origin}/webhook`;
		data.webhookTestBaseUrl = `${this.origin}/webhook-test`;
		return data;
	}

	private webhookDescription(): IWebhookDescription {
		const description = this.nodeType.description.webhooks?.find(
			(webhook) => webhook.name === 'default',
		);
		if (!description) throw new Error('The trigger declares no default webhook');
		return description;
	}

	private webhookData(
		workflow: Workflow,
		kind: WebhookKind,
		additionalData: IWorkflowExecuteAdditionalData,
	): IWebhookData {
		return {
			httpMethod: 'POST',
			node: TRIGGER_NODE_NAME,
			path: `${WEBHOOK_ID}/events`,
			webhookDescription: this.webhookDescription(),
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: WEBHOOK_ID,
			isTest: kind === 'test',
		};
	}

	/** One webhook method of the node, in n8n-core's HookContext (n8n's WebhookService.runWebhookMethod). */
	private async runHook(
		workflow: Workflow,
		method: 'checkExists' | 'create' | 'delete',
		kind: WebhookKind,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean> {
		const fn = this.nodeType.webhookMethods?.default?.[method];
		if (!fn) throw new Error(`The trigger has no webhook method ${method}`);
		const additionalData = this.additionalData(workflow, mode);
		const node = TriggerHarness.nodeOf(workflow);
		const context = new HookContext(
			workflow,
			node,
			additionalData,
			mode,
			activation,
			this.webhookData(workflow, kind, additionalData),
		);
		return await fn.call(context);
	}

	/** n8n's WorkflowStaticDataService.saveStaticData: only static data marked as changed is written. */
	private saveStaticData(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged === true) {
			this.savedStaticData = jsonCopy(workflow.staticData);
			workflow.staticData.__dataChanged = false;
		}
	}

	/**
	 * Runs one webhook method by itself on the stored state (production: the saved static data, saved
	 * again afterwards like n8n does around its webhook methods; test: the test registration's).
	 */
	async hook(
		method: 'checkExists' | 'create' | 'delete',
		kind: WebhookKind = 'production',
	): Promise<boolean> {
		if (kind === 'test') {
			const workflow = this.workflowWith(this.testRegistration?.staticData ?? {});
			const result =
				method === 'delete'
					? await this.runHook(workflow, 'delete', 'test', 'internal', 'update')
					: await this.runHook(workflow, method, 'test', 'manual', 'manual');
			if (method === 'delete') this.testRegistration = undefined;
			else if (method === 'create' || this.testRegistration)
				this.testRegistration = { staticData: jsonCopy(workflow.staticData) };
			return result;
		}
		const workflow = this.workflowWith(this.savedStaticData);
		const result =
			method === 'delete'
				? await this.runHook(workflow, 'delete', 'production', 'internal', 'update')
				: await this.runHook(workflow, method, 'production', 'trigger', 'activate');
		this.saveStaticData(workflow);
		return result;
	}

	checkExists(kind: WebhookKind = 'production') {
		return this.hook('checkExists', kind);
	}

	/** The node's delete by itself, as deactivation runs it; answers what the node answers. */
	delete(kind: WebhookKind = 'production') {
		if (kind === 'production') this.active = false;
		return this.hook('delete', kind);
	}

	/**
	 * ActiveWorkflowManager.clearWebhooks: delete with the saved static data, then save it. n8n logs an
	 * error of delete instead of showing it to the user; here it is kept in `removalErrors`.
	 */
	private async clearWebhooks(): Promise<void> {
		const workflow = this.workflowWith(this.savedStaticData);
		try {
			await this.runHook(workflow, 'delete', 'production', 'internal', 'update');
		} catch (error) {
			this.removalErrors.push(error as Error);
			return;
		}
		this.saveStaticData(workflow);
	}

	/**
	 * Activating the workflow (ActiveWorkflowManager.add / addWebhooks): checkExists, create when needed;
	 * on an error the webhooks are cleared and the error is what the user sees.
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		const workflow = this.workflowWith(this.savedStaticData);
		try {
			const exists = await this.runHook(
				workflow,
				'checkExists',
				'production',
				'trigger',
				activation,
			);
			if (!exists) await this.runHook(workflow, 'create', 'production', 'trigger', activation);
		} catch (error) {
			await this.clearWebhooks();
			throw error;
		}
		this.saveStaticData(workflow);
		this.active = true;
	}

	/** Deactivating the workflow (ActiveWorkflowManager.remove). */
	async deactivate(): Promise<void> {
		this.active = false;
		await this.clearWebhooks();
	}

	/**
	 * "Listen for test event" (TestWebhooks.needsWebhook): a workflow with empty static data; what the
	 * webhook methods leave in it is kept with the registration. On an error the test webhooks are removed.
	 */
	async listen(): Promise<void> {
		const workflow = this.workflowWith({});
		try {
			const exists = await this.runHook(workflow, 'checkExists', 'test', 'manual', 'manual');
			if (!exists) await this.runHook(workflow, 'create', 'test', 'manual', 'manual');
		} catch (error) {
			await this.runHook(workflow, 'delete', 'test', 'internal', 'update');
			throw error;
		}
		this.testRegistration = { staticData: jsonCopy(workflow.staticData) };
	}

	/** TestWebhooks.deactivateWebhooks: after the first test event, on timeout, or when the user stops. */
	async stopListening(): Promise<void> {
		if (!this.testRegistration) return;
		const workflow = this.workflowWith(this.testRegistration.staticData);
		this.testRegistration = undefined;
		await this.runHook(workflow, 'delete', 'test', 'internal', 'update');
	}

	/**
	 * What an n8n expression in a node after the trigger gives for one of its items, evaluated by
	 * n8n-workflow's expression engine (with its sandbox), e.g. `=Order {{ $json.tool_arguments.order_id }}`.
	 */
	evaluate(expression: string, item: IDataObject): unknown {
		const workflow = this.workflowWith({});
		return workflow.expression.getParameterValue(
			expression,
			null,
			0,
			0,
			TRIGGER_NODE_NAME,
			[{ json: item }],
			'manual',
			{},
		);
	}

	/** Waits until `count` executions were started, or fails after `timeoutMs`. */
	async waitForExecutions(count: number, timeoutMs = 5000): Promise<StartedExecution[]> {
		await this.waitFor(
			() => this.executions.length >= count,
			timeoutMs,
			() => `${count} executions, got ${this.executions.length}`,
		);
		return this.executions;
	}

	/** Waits for what n8n does after answering (removing a test webhook after its event). */
	async idle(): Promise<void> {
		while (this.background.size > 0) await Promise.allSettled([...this.background]);
	}

	private async waitFor(
		done: () => boolean,
		timeoutMs: number,
		describe: () => string,
	): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!done()) {
			if (Date.now() > deadline) throw new Error(`Timed out waiting for ${describe()}`);
			await sleep(10);
		}
	}

	/** Stands in for n8n's webhook server (see the top of this file). */
	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? '/', this.origin);
		const raw = await readBody(request);
		const send = (status: number, body: unknown) => {
			response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
			response.end(JSON.stringify(body));
		};
		let kind: WebhookKind | undefined;
		if (url.pathname === new URL(this.url('production')).pathname && this.active)
			kind = 'production';
		else if (url.pathname === new URL(this.url('test')).pathname && this.testRegistration)
			kind = 'test';
		if (kind === undefined || request.method !== 'POST') {
			send(404, {
				code: 404,
				message: `The requested webhook "${request.method} ${url.pathname}" is not registered.`,
			});
			return;
		}
		const query = parseQuery(url.searchParams);
		const entry: ReceivedRequest = { kind, query, body: undefined, status: 0, response: undefined };
		const record = (status: number, body: string) => {
			entry.status = status;
			try {
				entry.response = body === '' ? null : JSON.parse(body);
			} catch {
				entry.response = body;
			}
			this.received.push(entry);
		};
		if (this.failuresToAnswer > 0) {
			this.failuresToAnswer--;
			record(503, '{"message":"Service Unavailable"}');
			send(503, { message: 'Service Unavailable' });
			return;
		}

		// n8n's body parser (middlewares/body-parser.ts).
		const contentType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
		let body: unknown;
		if (raw.length > 0) {
			if (contentType === 'application/json') {
				try {
					body = JSON.parse(raw.toString('utf8'));
				} catch {
					record(422, '{"code":422,"message":"Failed to parse request body"}');
					send(422, { code: 422, message: 'Failed to parse request body' });
					return;
				}
			} else if (contentType === 'text/plain') {
				body = raw.toString('utf8');
			}
		}
		if (!body) body = {};
		entry.body = body;

		// As LiveWebhooks / TestWebhooks build the workflow for a request.
		const workflow =
			kind === 'production' ? this.workflowWith(this.savedStaticData) : this.workflowWith({});
		if (kind === 'test' && this.testRegistration)
			workflow.setTestStaticData(jsonCopy(this.testRegistration.staticData));
		const node = TriggerHarness.nodeOf(workflow);

		// The real node, in n8n-core's WebhookContext, with an express-like request and response that
		// write to the real HTTP response.
		const mode: WorkflowExecuteMode = kind === 'test' ? 'manual' : 'webhook';
		const additionalData = this.additionalData(workflow, mode);
		let written: { status: number; text: string } | undefined;
		const expressResponse = {
			statusCode: 200,
			status(code: number) {
				this.statusCode = code;
				return this;
			},
			setHeader(name: string, value: string) {
				response.setHeader(name, value);
				return this;
			},
			json(value: unknown) {
				response.setHeader('content-type', 'application/json; charset=utf-8');
				return this.send(JSON.stringify(value));
			},
			send(value?: unknown) {
				const text =
					value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
				written = { status: this.statusCode, text };
				response.statusCode = this.statusCode;
				response.end(text);
				return this;
			},
			end() {
				return this.send();
			},
			get headersSent() {
				return response.headersSent;
			},
		};
		additionalData.httpRequest = {
			method: request.method,
			url: request.url,
			path: url.pathname,
			headers: request.headers,
			query,
			params: {},
			body,
		} as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse =
			expressResponse as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			mode,
			this.webhookData(workflow, kind, additionalData),
			[],
			null,
		);

		let result: IWebhookResponseData;
		try {
			if (!this.nodeType.webhook) throw new Error('The trigger has no webhook()');
			result = await this.nodeType.webhook.call(context);
		} catch (error) {
			entry.error = error as Error;
			record(500, '{"code":0,"message":"Error in workflow"}');
			send(500, { code: 0, message: 'Error in workflow' });
			return;
		}

		// What n8n's webhook helpers do with the node's answer.
		if (result.noWebhookResponse === true) {
			if (!written) throw new Error('webhook() said it answered, but wrote no response');
			record(written.status, written.text);
			return;
		}
		if (result.workflowData === undefined) {
			const answer = result.webhookResponse ?? { message: 'Webhook call received' };
			record(200, JSON.stringify(answer));
			send(200, answer);
			return;
		}
		const items = (result.workflowData[0] ?? []).map((item) => item.json);
		this.executions.push({ kind, items });
		if (kind === 'test') {
			// A test webhook serves one execution; then n8n removes it.
			const removal = this.stopListening();
			this.background.add(removal);
			void removal.finally(() => this.background.delete(removal)).catch(() => undefined);
		}
		const responseMode = workflow.expression.getSimpleParameterValue(
			node,
			this.webhookDescription().responseMode as string,
			mode,
			{},
			undefined,
			'onReceived',
		) as ResponseMode;
		if (responseMode === 'onReceived') {
			// As n8n's webhook helpers answer: a non-empty responseData of the webhook description is sent
			// as the body (its default is the text "firstEntryJson"), otherwise the node's webhookResponse.
			const responseData = workflow.expression.getSimpleParameterValue(
				node,
				(this.webhookDescription().responseData as string | undefined) ?? 'firstEntryJson',
				mode,
				{},
				undefined,
				'firstEntryJson',
			);
			const answer = responseData
				? responseData
				: (result.webhookResponse ?? { message: 'Workflow was started' });
			record(200, typeof answer === 'string' ? answer : JSON.stringify(answer));
			send(200, answer as IDataObject);
			return;
		}
		// lastNode / responseNode: n8n runs the workflow and answers with what it produced.
		let answer: IDataObject;
		try {
			if (!this.options.workflowAnswer)
				throw new Error(`No workflowAnswer given for response mode ${responseMode}`);
			answer = this.options.workflowAnswer(items, responseMode);
		} catch (error) {
			entry.error = error as Error;
			record(500, '{"code":0,"message":"Error in workflow"}');
			send(500, { code: 0, message: 'Error in workflow' });
			return;
		}
		record(200, JSON.stringify(answer));
		send(200, answer);
	}

	/** Waits for background work, then stops the server; open connections are dropped. */
	close(): Promise<void> {
		this.closed ??= (async () => {
			await this.idle();
			await new Promise<void>((resolve) => {
				this.server.close(() => resolve());
				this.server.closeAllConnections();
			});
		})();
		return this.closed;
	}
}

/** Sends a request straight to a URL of the receiver, as anyone on the network could. */
export async function post(
	url: string,
	body: string,
	contentType = 'application/json',
): Promise<{ status: number; body: unknown }> {
	const response = await fetch(url, {
		method: 'POST',
		body,
		headers: { 'content-type': contentType },
	});
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = text === '' ? null : JSON.parse(text);
	} catch {
		// not JSON: keep the text
	}
	return { status: response.status, body: parsed };
}
