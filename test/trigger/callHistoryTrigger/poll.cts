/**
 * Drives the Voice Agent Call History Trigger the way n8n runs a polling trigger, over real HTTP.
 *
 * What is real:
 * - the node, loaded from the built `dist/` by n8n-core's PackageDirectoryLoader (which adds Poll Times);
 * - n8n-workflow's `Workflow`, with the node's static data and its change tracking;
 * - n8n-core's `PollContext` and `PollTriggerExecutor` (through `TriggersAndPollers.runPollFunction`):
 *   on publish the poll runs at once and an error fails the publish; a scheduled poll's error is
 *   reported instead; data starts an execution, null starts nothing;
 * - "Fetch Test Event": n8n-core's `WorkflowExecute` in manual mode (node.cts), which polls in a
 *   PollContext of mode manual;
 * - the HTTP to the sandbox.
 *
 * What stands in for n8n's server (packages/cli, followed here): the database holding the static data,
 * and what ActiveWorkflowManager / TriggerExecutionContextFactory do around the executor: `__emit`
 * saves the static data (when marked as changed) and starts an execution, recorded here; publishing
 * saves it after the first poll; a restart builds the workflow anew from the saved static data.
 * The schedule (cron) is the test calling `poll()`.
 */
import { ExecutionLifecycleHooks, PollContext, PollTriggerExecutor } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeParameters,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import {
	additionalDataFor,
	loadPackage,
	nodeCredentials,
	PACKAGE_NAME,
	type LoadedPackage,
	type VoiceAgentCredentials,
} from '../../support/n8n.cts';
import { runNode, type NodeRun } from '../../support/node.cts';
import type { TestSandbox } from '../../support/sandbox.cts';
import { jsonCopy } from '../../support/jsonCopy.cts';

// n8n-core's services come from its own copy of the DI container.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }));

export const POLL_TRIGGER_TYPE = `${PACKAGE_NAME}.voiceAgentCallHistoryTrigger`;
export const POLL_NODE_NAME = 'Call History';
const STATIC_DATA_KEY = `node:${POLL_NODE_NAME}`;

/** What an execution the trigger started received: the items of its one output. */
export interface PolledExecution {
	items: IDataObject[];
}

/** What the trigger keeps in its static data (nodes/VoiceAgentCallHistoryTrigger/state.ts). */
export interface CallHistoryState {
	scope: string;
	seen: string[];
	pending: string[];
	backfill?: { cursor?: string; seen?: string[]; last: string[]; before?: number };
}

interface Live {
	workflow: Workflow;
	additionalData: IWorkflowExecuteAdditionalData;
	run: (testingTrigger?: boolean) => Promise<void>;
}

export class PollHarness {
	/** The workflow's static data as n8n's database holds it. */
	private saved: IDataObject = {};
	private live: Live | undefined;
	/** The executions the trigger started, in order. */
	readonly executions: PolledExecution[] = [];
	/** Errors of scheduled polls, which n8n records as failed executions. */
	readonly pollErrors: Error[] = [];

	constructor(
		private readonly pkg: LoadedPackage,
		private credentials: VoiceAgentCredentials,
		private parameters: INodeParameters,
	) {}

	static async start(credentials: VoiceAgentCredentials, parameters: INodeParameters) {
		return new PollHarness(await loadPackage(), credentials, parameters);
	}

	private node(): INode {
		return {
			id: 'c4d2e8f1-0000-4000-8000-000000000003',
			name: POLL_NODE_NAME,
			type: POLL_TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: jsonCopy(this.parameters),
			credentials: nodeCredentials(),
		};
	}

	/** The node's static data as saved with the workflow (what a restart starts from), as a copy. */
	get savedNodeData(): IDataObject {
		return jsonCopy((this.saved[STATIC_DATA_KEY] ?? {}) as IDataObject);
	}

	/** The trigger's position as saved with the workflow (the node's `callHistory`). */
	get savedState(): CallHistoryState | undefined {
		return this.savedNodeData.callHistory as CallHistoryState | undefined;
	}

	/** The trigger's position in memory, which the next poll starts from. */
	get state(): CallHistoryState | undefined {
		return this.nodeData.callHistory as CallHistoryState | undefined;
	}

	/** The node's static data in memory (what the next poll starts from), as a copy. */
	get nodeData(): IDataObject {
		if (!this.live) throw new Error('The workflow is not published');
		return jsonCopy((this.live.workflow.staticData[STATIC_DATA_KEY] ?? {}) as IDataObject);
	}

	/** Every item of every execution, in order. */
	get emitted(): IDataObject[] {
		return this.executions.flatMap((execution) => execution.items);
	}

	/** The IDs of every call output, in order. */
	get emittedIds(): string[] {
		return this.emitted.map((item) => item.id as string);
	}

	/** Saving the workflow in the editor with other parameters; the static data stays. */
	setParameters(parameters: INodeParameters): void {
		this.parameters = parameters;
	}

	/**
	 * Editing the credential the node uses (same credential ID, other data): n8n reads credentials at
	 * each request, so the published trigger's next poll uses them.
	 */
	setCredentials(credentials: VoiceAgentCredentials): void {
		this.credentials = credentials;
		if (this.live) {
			const { hooks } = this.live.additionalData;
			this.live.additionalData.credentialsHelper = additionalDataFor(
				this.pkg,
				credentials,
				hooks as ExecutionLifecycleHooks,
			).credentialsHelper;
		}
	}

	/** WorkflowStaticDataService.saveStaticData: only static data marked as changed is written. */
	private saveStaticData(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged === true) {
			this.saved = jsonCopy(workflow.staticData);
			workflow.staticData.__dataChanged = false;
		}
	}

	/**
	 * Publishing the workflow, or n8n starting with it published ('init'): the workflow is built from the
	 * saved static data and polled at once; an error fails the publish and nothing is saved.
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		const node = this.node();
		const workflow = new Workflow({
			id: 'PollWf7Jq2LmP9sR',
			name: 'Call history',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: this.pkg.nodeTypes,
			settings: {},
			staticData: jsonCopy(this.saved),
		});
		const hooks = new ExecutionLifecycleHooks('trigger', 'poll-test-execution', {
			id: workflow.id,
			name: workflow.name,
			nodes: [node],
			connections: {},
			active: true,
			settings: {},
		} as unknown as ConstructorParameters<typeof ExecutionLifecycleHooks>[2]);
		const additionalData = additionalDataFor(this.pkg, this.credentials, hooks);
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			'trigger',
			activation,
			(data) => {
				this.saveStaticData(workflow);
				this.executions.push({ items: data[0].map((item) => item.json) });
			},
			(error) => {
				this.pollErrors.push(error);
			},
		);
		const live: Live = { workflow, additionalData, run: async () => {} };
		const executor = Container.get(PollTriggerExecutor) as PollTriggerExecutor;
		live.run = executor.create(workflow, node, context, () => this.live === live);
		this.live = live;
		try {
			await live.run(true);
		} catch (error) {
			this.live = undefined;
			throw error;
		}
		this.saveStaticData(workflow);
	}

	/** One tick of the schedule: the poll runs; an error goes where n8n reports it, not to the caller. */
	async poll(): Promise<void> {
		if (!this.live) throw new Error('The workflow is not published');
		await this.live.run();
	}

	/** Two ticks at once, as a slow poll overlaps the next one. */
	async overlappingPolls(): Promise<void> {
		await Promise.all([this.poll(), this.poll()]);
	}

	/** Unpublishing: the schedule stops; the static data stays saved with the workflow. */
	deactivate(): void {
		this.live = undefined;
	}

	/** n8n stops (whatever is only in memory is gone) and starts again with the workflow published. */
	async restart(): Promise<void> {
		this.live = undefined;
		await this.activate('init');
	}

	/**
	 * n8n stops after an execution started but before the static data was saved (n8n does not wait for
	 * that save), and starts again: the workflow comes back with the node's static data given (what was
	 * saved before), and polls at once.
	 */
	async crashAndRestart(savedNodeData: IDataObject): Promise<void> {
		this.saved = { ...this.saved, [STATIC_DATA_KEY]: jsonCopy(savedNodeData) };
		await this.restart();
	}

	/** "Fetch Test Event" in the editor: a manual execution of the node with the saved static data. */
	async fetchTestEvent(): Promise<NodeRun> {
		return await runNode({
			name: POLL_NODE_NAME,
			type: POLL_TRIGGER_TYPE,
			parameters: this.parameters,
			credentials: this.credentials,
			staticData: jsonCopy(this.saved),
		});
	}
}

/**
 * Starts triggers on the suite's sandbox: `start(parameters)` gives a harness whose credential is the
 * sandbox's (unless overridden); parameters not given get the defaults n8n gives them.
 */
export function usePollTriggers(sandbox: TestSandbox) {
	return (parameters: INodeParameters = {}, credentials: Partial<VoiceAgentCredentials> = {}) =>
		PollHarness.start(
			{ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, ...credentials },
			parameters,
		);
}
