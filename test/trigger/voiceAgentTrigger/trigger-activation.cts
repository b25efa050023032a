/**
 * What n8n's server does around the trigger's webhook methods, following its code (packages/cli:
 * active-workflow-manager.ts, webhooks/test-webhooks.ts, workflows/workflow-static-data.service.ts):
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
 */
import type { IDataObject, WorkflowActivateMode } from 'n8n-workflow';
import type { Workflow } from 'n8n-workflow';

import { jsonCopy } from '../../support/jsonCopy.cts';
import {
	TRIGGER_NODE_NAME,
	TriggerWorkflow,
	type HookMethod,
	type WebhookKind,
} from './trigger-workflow.cts';

export type Registration = {
	/** SHA-256 of the token, as this version saves it. */
	tokenHash?: string;
	rotation?: number;
	/** The token in clear, as versions before hashing saved it. */
	secret?: string;
	agentId: string;
	/** The webhook to put back, sealed with a key derived from the API key; '' when none. */
	sealedPreviousWebhook?: string;
	/** The webhook to put back in clear, as versions before sealing saved it. */
	previousWebhook?: string;
	kind: 'production' | 'test';
};

const STATIC_DATA_KEY = `node:${TRIGGER_NODE_NAME}`;

/** The trigger's workflow as n8n activates, deactivates and listens with it. */
export class TriggerActivation extends TriggerWorkflow {
	/** Errors of delete while n8n removed the production webhook (n8n only logs them). */
	readonly removalErrors: Error[] = [];
	/** The workflow's static data as n8n's database holds it. */
	private savedStaticData: IDataObject = {};
	/** The static data a test webhook registration carries while n8n listens for a test event. */
	private testRegistration: { staticData: IDataObject } | undefined;
	/** Whether the workflow is active: n8n serves its production URL only then. */
	private active = false;

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

	/**
	 * The database holding these registrations in the workflow's static data, as a lost or older save
	 * can leave them (an empty object: none).
	 */
	saveRegistrations(registrations: Record<string, Registration>): void {
		this.savedStaticData = { [STATIC_DATA_KEY]: { registrations: jsonCopy(registrations) } };
	}

	/**
	 * n8n restarting: test webhooks live in the main's memory only, so a test registration is gone
	 * without its delete having run, and the test URL answers 404.
	 */
	restart(): void {
		this.testRegistration = undefined;
	}

	/** Whether n8n is listening for a test event. */
	get listening(): boolean {
		return this.testRegistration !== undefined;
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
	async hook(method: HookMethod, kind: WebhookKind = 'production'): Promise<boolean> {
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

	/** The webhook a request path reaches while n8n serves it; undefined where n8n answers 404. */
	servedKind(pathname: string): WebhookKind | undefined {
		if (pathname === new URL(this.url('production')).pathname && this.active) return 'production';
		if (pathname === new URL(this.url('test')).pathname && this.testRegistration) return 'test';
		return undefined;
	}

	/** The workflow as LiveWebhooks / TestWebhooks build it for a request to the webhook. */
	workflowForRequest(kind: WebhookKind): Workflow {
		if (kind === 'production') return this.workflowWith(this.savedStaticData);
		const workflow = this.workflowWith({});
		if (this.testRegistration)
			workflow.setTestStaticData(jsonCopy(this.testRegistration.staticData));
		return workflow;
	}
}
