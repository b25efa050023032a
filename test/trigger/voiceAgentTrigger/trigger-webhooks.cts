/**
 * Stands in for n8n's webhook server, following its code (packages/cli: webhooks/webhook-helpers.ts,
 * live-webhooks.ts, test-webhooks.ts), on a real HTTP server on 127.0.0.1 that the sandbox POSTs its
 * events to:
 * - `POST /webhook/<webhookId>/events` (production) and `/webhook-test/...` (test), while n8n serves them;
 * - the body parsed as n8n's body parser does (trigger-http.cts);
 * - the real node's webhook() in n8n-core's WebhookContext, with an express-like request and response
 *   that write to the real HTTP response; then the answer per response mode as n8n's webhook helpers
 *   give it;
 * - the rest of the workflow: an item the node emits is recorded as one started execution. In the
 *   response modes lastNode / responseNode, n8n answers the service with what the workflow produced;
 *   the test supplies that answer (`workflowAnswer`), e.g. the result of a tool call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { WebhookContext } from 'n8n-core';
import type { IDataObject, IWebhookResponseData, WorkflowExecuteMode } from 'n8n-workflow';

import { listen, type LocalServer } from '../../support/servers.cts';
import type { TriggerActivation } from './trigger-activation.cts';
import {
	expressPair,
	parseAnswer,
	parseBody,
	parseQuery,
	readBody,
	type Query,
} from './trigger-http.cts';
import { triggerNodeOf, type WebhookKind } from './trigger-workflow.cts';
import { waitFor } from '../../support/wait.cts';

export type ResponseMode = 'onReceived' | 'lastNode' | 'responseNode';

/**
 * The JSON the last node produced (n8n answers with the first item's JSON) or what a Respond to Webhook
 * node sends, in the response modes lastNode / responseNode. A throw is a failed execution, which n8n
 * answers with a 500.
 */
export type WorkflowAnswer = (
	items: IDataObject[],
	responseMode: ResponseMode,
	request: { query: Query },
) => IDataObject | Promise<IDataObject>;

/** One request that reached the receiver, and how it was answered. */
export interface ReceivedRequest {
	kind: WebhookKind;
	query: Query;
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
	/** An execution n8n starts, failed, when webhook() throws: it shows in the executions list. */
	failed?: true;
}

export class WebhookServer {
	readonly origin: string;
	readonly received: ReceivedRequest[] = [];
	readonly executions: StartedExecution[] = [];
	private failuresToAnswer = 0;
	private failuresToStart = 0;
	private readonly drops: Array<{ moment: 'before' | 'after'; match: (body: unknown) => boolean }> =
		[];
	private readonly background = new Set<Promise<unknown>>();
	private closed: Promise<void> | undefined;

	private constructor(
		private readonly server: Server,
		private readonly local: LocalServer,
	) {
		this.origin = local.origin;
	}

	/** Listens on a free loopback port; requests are answered once `serve` names the trigger. */
	static async start(): Promise<WebhookServer> {
		const server = createServer();
		return new WebhookServer(server, await listen(server));
	}

	serve(trigger: TriggerActivation, workflowAnswer?: WorkflowAnswer): void {
		this.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
			this.handle(trigger, workflowAnswer, request, response).catch((error: unknown) => {
				if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ message: `Receiver failure: ${String(error)}` }));
			});
		});
	}

	/** Answers the next `count` requests with 503 before the node sees them (n8n briefly unavailable). */
	failNextRequests(count: number): void {
		this.failuresToAnswer = count;
	}

	/**
	 * The connection of each of the next requests breaks without an answer (the sender sees a transport
	 * error): `before` the node sees the request, or `after` n8n acted on it (the execution started), as
	 * when a proxy or the network drops the answer. `match` picks the requests by their JSON body.
	 */
	dropNextRequest(
		moment: 'before' | 'after',
		match: (body: unknown) => boolean = () => true,
	): void {
		this.drops.push({ moment, match });
	}

	/**
	 * n8n fails to start the next `count` executions the node asked for (the database or, in queue mode,
	 * Redis unavailable): it answers 500 and no execution exists.
	 */
	failNextStarts(count: number): void {
		this.failuresToStart = count;
	}

	/** Waits until `count` executions were started, or fails after `timeoutMs`. */
	async waitForExecutions(count: number, timeoutMs = 5000): Promise<StartedExecution[]> {
		return await waitFor(
			() => `${count} executions, got ${this.executions.length}`,
			() => (this.executions.length >= count ? this.executions : undefined),
			timeoutMs,
		);
	}

	/** Waits for what n8n does after answering (removing a test webhook after its event). */
	async idle(): Promise<void> {
		while (this.background.size > 0) await Promise.allSettled([...this.background]);
	}

	/** Waits for background work, then stops the server; open connections are dropped. */
	close(): Promise<void> {
		this.closed ??= (async () => {
			await this.idle();
			await this.local.close();
		})();
		return this.closed;
	}

	/** The drop planned for a request with this body, if any (used up). */
	private takeDrop(raw: Buffer): 'before' | 'after' | undefined {
		let body: unknown;
		try {
			body = JSON.parse(raw.toString('utf8'));
		} catch {
			body = undefined;
		}
		const index = this.drops.findIndex((drop) => drop.match(body));
		return index < 0 ? undefined : this.drops.splice(index, 1)[0].moment;
	}

	private async handle(
		trigger: TriggerActivation,
		workflowAnswer: WorkflowAnswer | undefined,
		request: IncomingMessage,
		response: ServerResponse,
	): Promise<void> {
		const url = new URL(request.url ?? '/', this.origin);
		const raw = await readBody(request);
		let send = (status: number, body: unknown) => {
			response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
			response.end(JSON.stringify(body));
		};
		const kind = trigger.servedKind(url.pathname);
		if (kind === undefined || request.method !== 'POST') {
			send(404, {
				code: 404,
				message: `The requested webhook "${request.method} ${url.pathname}" is not registered.`,
			});
			return;
		}
		const query = parseQuery(url.searchParams);
		const entry: ReceivedRequest = { kind, query, body: undefined, status: 0, response: undefined };
		const answer = (status: number, body: unknown) => {
			entry.status = status;
			entry.response = body;
			this.received.push(entry);
			send(status, body);
		};
		if (this.failuresToAnswer > 0) {
			this.failuresToAnswer--;
			return answer(503, { message: 'Service Unavailable' });
		}
		const drop = this.takeDrop(raw);
		if (drop === 'before') {
			request.socket.destroy();
			return;
		}
		const parsed = parseBody(request, raw);
		if (!parsed) return answer(422, { code: 422, message: 'Failed to parse request body' });
		entry.body = parsed.body;

		const workflow = trigger.workflowForRequest(kind);
		const node = triggerNodeOf(workflow);
		const mode: WorkflowExecuteMode = kind === 'test' ? 'manual' : 'webhook';
		const additionalData = trigger.additionalData(workflow, mode);
		const express = expressPair(request, response, url, query, parsed.body);
		additionalData.httpRequest = express.httpRequest;
		additionalData.httpResponse = express.httpResponse;
		// From here n8n answers through the same express response it gave the node.
		send = (status, body) => void express.httpResponse.status(status).json(body);
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			mode,
			trigger.webhookData(workflow, kind, additionalData),
			[],
			null,
		);

		let result: IWebhookResponseData;
		try {
			if (!trigger.nodeType.webhook) throw new Error('The trigger has no webhook()');
			result = await trigger.nodeType.webhook.call(context);
		} catch (error) {
			entry.error = error as Error;
			// n8n answers 500 and records a failed execution of the workflow (Error Workflows fire).
			this.executions.push({ kind, items: [{}], failed: true });
			return answer(500, { code: 0, message: 'Error in workflow' });
		}

		// The answer is lost: n8n goes on (and answers into the closed connection).
		if (drop === 'after') request.socket.destroy();
		// What n8n's webhook helpers do with the node's answer.
		if (result.noWebhookResponse === true) {
			const written = express.written();
			if (!written) throw new Error('webhook() said it answered, but wrote no response');
			entry.status = written.status;
			entry.response = parseAnswer(written.text);
			this.received.push(entry);
			return;
		}
		if (result.workflowData === undefined)
			return answer(200, result.webhookResponse ?? { message: 'Webhook call received' });
		if (this.failuresToStart > 0) {
			this.failuresToStart--;
			return answer(500, { code: 0, message: 'There was a problem executing the workflow' });
		}
		const items = (result.workflowData[0] ?? []).map((item) => item.json);
		this.executions.push({ kind, items });
		if (kind === 'test') {
			// A test webhook serves one execution; then n8n removes it.
			const removal = trigger.stopListening();
			this.background.add(removal);
			void removal.finally(() => this.background.delete(removal)).catch(() => undefined);
		}
		const description = trigger.webhookDescription();
		const responseMode = workflow.expression.getSimpleParameterValue(
			node,
			description.responseMode as string,
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
				(description.responseData as string | undefined) ?? 'firstEntryJson',
				mode,
				{},
				undefined,
				'firstEntryJson',
			);
			return answer(
				200,
				responseData
					? responseData
					: (result.webhookResponse ?? { message: 'Workflow was started' }),
			);
		}
		// lastNode / responseNode: n8n runs the workflow and answers with what it produced.
		let produced: IDataObject;
		try {
			if (!workflowAnswer)
				throw new Error(`No workflowAnswer given for response mode ${responseMode}`);
			produced = await workflowAnswer(items, responseMode, { query });
		} catch (error) {
			entry.error = error as Error;
			return answer(500, { code: 0, message: 'Error in workflow' });
		}
		answer(200, produced);
	}
}
