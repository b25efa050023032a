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
 * its code, one job per module:
 * - trigger-workflow.cts: the one-node workflow n8n builds from its stored form, and the webhook methods
 *   run in HookContext;
 * - trigger-activation.cts: the database holding the static data, activation / deactivation
 *   (ActiveWorkflowManager) and "Listen for test event" (TestWebhooks);
 * - trigger-webhooks.cts: the webhook server, its body parser, and the answer per response mode.
 */
import type { INodeParameters } from 'n8n-workflow';

import { loadPackage, rl, type VoiceAgentCredentials } from '../../support/n8n.cts';
import type { TestSandbox } from '../../support/sandbox.cts';
import { TriggerActivation } from './trigger-activation.cts';
import {
	WebhookServer,
	type ReceivedRequest,
	type StartedExecution,
	type WorkflowAnswer,
} from './trigger-webhooks.cts';

export type { Registration } from './trigger-activation.cts';
export type {
	ReceivedRequest,
	ResponseMode,
	StartedExecution,
	WorkflowAnswer,
} from './trigger-webhooks.cts';
export {
	TRIGGER_NODE_NAME,
	TRIGGER_TYPE,
	WEBHOOK_ID,
	type WebhookKind,
} from './trigger-workflow.cts';

export interface TriggerOptions {
	credentials: VoiceAgentCredentials;
	/** The node's parameters as the user set them; the rest get their defaults as in n8n. */
	parameters: INodeParameters;
	/** Stands in for the workflow behind the trigger in the response modes lastNode / responseNode. */
	workflowAnswer?: WorkflowAnswer;
}

/** A Voice Agent Trigger node in a one-node workflow, with the HTTP server its webhook URLs point at. */
export class TriggerHarness extends TriggerActivation {
	private constructor(
		private readonly webhooks: WebhookServer,
		...workflow: ConstructorParameters<typeof TriggerActivation>
	) {
		super(...workflow);
	}

	static async start(options: TriggerOptions): Promise<TriggerHarness> {
		const pkg = await loadPackage();
		const webhooks = await WebhookServer.start();
		const harness = new TriggerHarness(
			webhooks,
			webhooks.origin,
			pkg,
			options.credentials,
			options.parameters,
		);
		webhooks.serve(harness, options.workflowAnswer);
		return harness;
	}

	/** The requests that reached n8n's webhook URLs, and how they were answered. */
	get received(): ReceivedRequest[] {
		return this.webhooks.received;
	}

	/** The executions the trigger started, in order. */
	get executions(): StartedExecution[] {
		return this.webhooks.executions;
	}

	/** Answers the next `count` requests with 503 before the node sees them (n8n briefly unavailable). */
	failNextRequests(count: number): void {
		this.webhooks.failNextRequests(count);
	}

	/**
	 * The connection of the next request (whose JSON body `match` picks) breaks without an answer, before
	 * the node sees it or after n8n acted on it.
	 */
	dropNextRequest(moment: 'before' | 'after', match?: (body: unknown) => boolean): void {
		this.webhooks.dropNextRequest(moment, match);
	}

	/** n8n fails to start the next `count` executions (answers 500, no execution). */
	failNextStarts(count: number): void {
		this.webhooks.failNextStarts(count);
	}

	/** Waits until `count` executions were started, or fails after `timeoutMs`. */
	waitForExecutions(count: number, timeoutMs?: number): Promise<StartedExecution[]> {
		return this.webhooks.waitForExecutions(count, timeoutMs);
	}

	/** Waits for what n8n does after answering (removing a test webhook after its event). */
	idle(): Promise<void> {
		return this.webhooks.idle();
	}

	/** Waits for background work, then stops the server; open connections are dropped. */
	close(): Promise<void> {
		return this.webhooks.close();
	}
}

export interface StartTriggerOptions
	extends Partial<Omit<TriggerOptions, 'credentials' | 'parameters'>> {
	/** Overrides the credential, which is the suite sandbox's (e.g. a wrong key, or another sandbox). */
	credentials?: Partial<VoiceAgentCredentials>;
}

/** Starts trigger harnesses on the suite's sandbox; each is closed after its test. */
export class Triggers {
	private readonly started: TriggerHarness[] = [];

	constructor(private readonly sandbox: TestSandbox) {}

	/** A trigger on the agent (by ID), with more parameters of the node and options of the harness. */
	async start(
		agentId: string,
		parameters: INodeParameters = {},
		{ credentials, ...options }: StartTriggerOptions = {},
	): Promise<TriggerHarness> {
		const trigger = await TriggerHarness.start({
			...options,
			credentials: {
				apiKey: this.sandbox.apiKey,
				baseUrl: this.sandbox.baseUrl,
				...credentials,
			},
			parameters: { agent: rl(agentId), ...parameters },
		});
		this.started.push(trigger);
		return trigger;
	}

	async closeAll(): Promise<void> {
		await Promise.all(this.started.splice(0).map((trigger) => trigger.close()));
	}
}

/** The suite's triggers on its sandbox, closed after each test. */
export function useTriggers(sandbox: TestSandbox): Triggers {
	const triggers = new Triggers(sandbox);
	afterEach(() => triggers.closeAll());
	return triggers;
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
