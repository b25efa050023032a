/**
 * The Voice Agent Trigger in a one-node workflow, as n8n builds it from its stored form. Real here:
 * n8n-workflow's `Workflow` (parameter defaults, node static data with its change tracking, expressions)
 * and n8n-core's `HookContext` for the webhook methods (checkExists / create / delete), with the
 * credential applied by the TestCredentialsHelper from n8n.cts. What n8n's server does around them is in
 * trigger-activation.cts.
 */
import { ExecutionLifecycleHooks, HookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import {
	additionalDataFor,
	nodeCredentials,
	PACKAGE_NAME,
	type LoadedPackage,
	type VoiceAgentCredentials,
} from '../../support/n8n.cts';
import { jsonCopy } from '../../support/jsonCopy.cts';

export const TRIGGER_TYPE = `${PACKAGE_NAME}.voiceAgentTrigger`;
export const TRIGGER_NODE_NAME = 'Voice Agent Trigger';
/** The node's webhookId, as n8n assigns one to every webhook node when it is added to a workflow. */
export const WEBHOOK_ID = '6c1d0f3e-2b7a-4c59-9e8d-1f0a2b3c4d5e';
const WORKFLOW_ID = 'Vx7Jq2LmP9sR4tUw';

export type WebhookKind = 'production' | 'test';
export type HookMethod = 'checkExists' | 'create' | 'delete';

/** The trigger node of a workflow built by TriggerWorkflow. */
export function triggerNodeOf(workflow: Workflow): INode {
	return workflow.getNode(TRIGGER_NODE_NAME) as INode;
}

/** The trigger's node with its parameters, and the workflows n8n builds around it. */
export class TriggerWorkflow {
	readonly nodeType: INodeType;
	private parameters: INodeParameters;

	constructor(
		/** Where n8n's webhook server listens: the webhook URLs start with it. */
		readonly origin: string,
		private readonly pkg: LoadedPackage,
		private readonly credentials: VoiceAgentCredentials,
		parameters: INodeParameters,
	) {
		this.nodeType = pkg.node(TRIGGER_TYPE);
		this.parameters = parameters;
	}

	/** The workflow as n8n builds it from its stored form; parameters get their defaults. */
	workflowWith(staticData: IDataObject): Workflow {
		const node: INode = {
			id: 'a3c1e7f0-0000-4000-8000-000000000002',
			name: TRIGGER_NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			parameters: jsonCopy(this.parameters),
			credentials: nodeCredentials(),
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

	/** The node's parameters as n8n sees them, defaults included. */
	get nodeParameters(): INodeParameters {
		return triggerNodeOf(this.workflowWith({})).parameters;
	}

	/** The webhook URL n8n gives the node, without the token the node adds. */
	url(kind: WebhookKind): string {
		return `${this.origin}/${kind === 'test' ? 'webhook-test' : 'webhook'}/${WEBHOOK_ID}/events`;
	}

	/** Saving the workflow in the editor with other parameters; the static data stays. */
	setParameters(parameters: INodeParameters): void {
		this.parameters = parameters;
	}

	additionalData(workflow: Workflow, mode: WorkflowExecuteMode): IWorkflowExecuteAdditionalData {
		const hooks = new ExecutionLifecycleHooks(mode, 'trigger-test-execution', {
			id: workflow.id,
			name: workflow.name,
			nodes: [triggerNodeOf(workflow)],
			connections: {},
			active: false,
			settings: {},
		} as unknown as ConstructorParameters<typeof ExecutionLifecycleHooks>[2]);
		const data = additionalDataFor(this.pkg, this.credentials, hooks);
		data.webhookBaseUrl = `${this.origin}/webhook`;
		data.webhookTestBaseUrl = `${this.origin}/webhook-test`;
		return data;
	}

	webhookDescription(): IWebhookDescription {
		const description = this.nodeType.description.webhooks?.find(
			(webhook) => webhook.name === 'default',
		);
		if (!description) throw new Error('The trigger declares no default webhook');
		return description;
	}

	webhookData(
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
	protected async runHook(
		workflow: Workflow,
		method: HookMethod,
		kind: WebhookKind,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean> {
		const fn = this.nodeType.webhookMethods?.default?.[method];
		if (!fn) throw new Error(`The trigger has no webhook method ${method}`);
		const additionalData = this.additionalData(workflow, mode);
		const context = new HookContext(
			workflow,
			triggerNodeOf(workflow),
			additionalData,
			mode,
			activation,
			this.webhookData(workflow, kind, additionalData),
		);
		return await fn.call(context);
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
}
