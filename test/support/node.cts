/**
 * Runs the Voice Agent node in n8n-core's real WorkflowExecute: a one-node workflow over the given input
 * items, its credential pointing at a test sandbox unless the test overrides it.
 */
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	IRunExecutionData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import {
	additionalDataFor,
	loadPackage,
	nodeCredentials,
	PACKAGE_NAME,
	type TestCredentialsHelper,
	type VoiceAgentCredentials,
} from './n8n.cts';
import type { TestSandbox } from './sandbox.cts';

export interface NodeRun {
	/** Items of the node's first output, in order. */
	items: INodeExecutionData[];
	/** The error that stopped the node, if any. */
	error?: Error & { description?: string | null; context?: IDataObject; httpCode?: string | null };
	run: IRun;
	/** How many times the credential was read and decrypted during the run. */
	credentialReads: number;
	/** The workflow it ran in (e.g. to see whether the node changed its static data). */
	workflow: Workflow;
}

export interface RunNodeOptions {
	parameters: INodeParameters;
	credentials: VoiceAgentCredentials;
	input?: IDataObject[];
	/** n8n's "On Error: Continue" setting. */
	continueOnFail?: boolean;
	type?: string;
	/** The node's version in the workflow (default 1). */
	typeVersion?: number;
	mode?: WorkflowExecuteMode;
	/** The node's name (default: Voice Agent). */
	name?: string;
	/** The workflow's static data, as saved with it. */
	staticData?: IDataObject;
	/** Stops the run once this settles, as n8n's "Stop execution" does (it cancels the engine's promise). */
	cancelWhen?: Promise<unknown>;
	/** The node's settings, e.g. Retry On Fail: `{ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 }`. */
	settings?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'onError'>;
	/** More runs of the node in the same execution after the first (as a loop gives it), each with its items. */
	laterInputs?: IDataObject[][];
	/** The execution's id (default test-execution). */
	executionId?: string;
	/** The workflow's id (default test-workflow): what n8n keys a node's shared state by, with the node's. */
	workflowId?: string;
	/**
	 * The saved state of an earlier execution to go on from, as n8n's *Retry execution* does: its
	 * context data (what nodes remember) is kept, its failed run of the node is dropped.
	 */
	retryOf?: IRun;
	/**
	 * What nodes remember in this execution (n8n's context data, e.g. `node:Voice Agent`), handed to the
	 * engine as it is: a test can watch how the node reads it.
	 */
	contextData?: IDataObject;
}

export const NODE_NAME = 'Voice Agent';

/**
 * What n8n's *Retry execution* starts from (packages/cli ExecutionService.retry): the failed execution's
 * saved state as JSON, without its error and without the failed run of the node that stopped it.
 */
function retryStateOf(failed: IRun, node: INode): IRunExecutionData {
	const data = JSON.parse(JSON.stringify(failed.data)) as IRunExecutionData;
	delete data.resultData.error;
	const nodeRuns = data.resultData.runData[node.name];
	if (nodeRuns?.at(-1)?.error !== undefined) nodeRuns.pop();
	// "Retry with currently saved workflow": the node as it is now, with its saved state.
	for (const entry of data.executionData?.nodeExecutionStack ?? []) {
		if (entry.node.name === node.name) entry.node = node;
	}
	return data;
}

/** Runs one node of the package over the given input items, in a real workflow execution. */
export async function runNode(options: RunNodeOptions): Promise<NodeRun> {
	const pkg = await loadPackage();
	const nodeName = options.name ?? NODE_NAME;
	const node: INode = {
		id: 'b5f9d2c6-0000-4000-8000-000000000001',
		name: nodeName,
		type: options.type ?? `${PACKAGE_NAME}.voiceAgent`,
		typeVersion: options.typeVersion ?? 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: nodeCredentials(),
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...options.settings,
	};
	const workflowId = options.workflowId ?? 'test-workflow';
	const workflow = new Workflow({
		id: workflowId,
		name: 'Test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: pkg.nodeTypes,
		settings: {},
		staticData: options.staticData,
	});
	const mode = options.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, options.executionId ?? 'test-execution', {
		id: workflowId,
		name: 'Test',
		nodes: [node],
		connections: {},
		active: false,
		settings: {},
		createdAt: new Date(),
		updatedAt: new Date(),
		isArchived: false,
		activeVersionId: null,
	} as unknown as ConstructorParameters<typeof ExecutionLifecycleHooks>[2]);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});

	const runs = [options.input ?? [{}], ...(options.laterInputs ?? [])];
	const stack = runs.map((items) => ({
		node,
		data: { main: [items.map((json) => ({ json }))] },
		source: null,
	}));
	const runExecutionData = (options.retryOf ? retryStateOf(options.retryOf, node) : undefined) ?? {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: options.contextData ?? {},
			metadata: {},
			nodeExecutionStack: stack,
			waitingExecution: {},
			waitingExecutionSource: null,
		},
	};
	const additionalData = additionalDataFor(pkg, options.credentials, hooks);
	additionalData.executionId = options.executionId ?? 'test-execution';
	const execution = new WorkflowExecute(
		additionalData,
		mode,
		runExecutionData as unknown as IRunExecutionData,
	);
	const running = execution.processRunExecutionData(workflow);
	void options.cancelWhen?.then(() => running.cancel());
	await running;
	const run = await finished;
	const taskData = run.data.resultData.runData[nodeName]?.at(-1);
	return {
		items: taskData?.data?.main?.[0] ?? [],
		error: (taskData?.error ?? run.data.resultData.error) as NodeRun['error'],
		run,
		credentialReads: (additionalData.credentialsHelper as TestCredentialsHelper).decryptions,
		workflow,
	};
}

export interface RunOptions {
	input?: Record<string, unknown>[];
	continueOnFail?: boolean;
	/** Overrides the credential (e.g. a wrong key, or a Base URL where nothing listens). */
	apiKey?: string;
	baseUrl?: string;
	cancelWhen?: Promise<unknown>;
	/** The node's version in the workflow (default 1). */
	typeVersion?: number;
}

/** Runs the Voice Agent node with the sandbox's credential. */
export function runWith(
	sandbox: TestSandbox,
	parameters: INodeParameters,
	options: RunOptions = {},
): Promise<NodeRun> {
	return runNode({
		parameters,
		credentials: {
			apiKey: options.apiKey ?? sandbox.apiKey,
			baseUrl: options.baseUrl ?? sandbox.baseUrl,
		},
		input: options.input as IDataObject[] | undefined,
		continueOnFail: options.continueOnFail,
		cancelWhen: options.cancelWhen,
		typeVersion: options.typeVersion,
	});
}

/** The hints the node left on its (first) run, as the editor shows them under its output. */
export function hintsOf(run: NodeRun, nodeName = NODE_NAME): string[] {
	return (run.run.data.resultData.runData[nodeName]?.[0]?.hints ?? []).map((hint) => hint.message);
}

/** The items' JSON, failing the test with the node's error when the run failed. */
export function jsonOf(run: NodeRun): any[] {
	if (run.error)
		throw new Error(`The node failed: ${run.error.message} (${run.error.description ?? ''})`);
	return run.items.map((item) => item.json);
}
