/**
 * The Voice Agent node as n8n's AI Agent uses it: n8n-core's own tool invocation
 * (`makeHandleToolInvocation`, what `getInputConnectionData` hands the agent for a node that is a tool),
 * each use a SupplyDataContext with the model's arguments as its input, a new run index per use and per
 * Retry On Fail try, all uses of one execution on the same run data. `Promise.all` over uses is what
 * LangChain's AgentExecutor (the AI Agent node at version 2.2) does with the tool calls of one step.
 */
import { SupplyDataContext } from 'n8n-core';
// Not exported from the package root: the very function n8n's AI Agent gets its tools from.
import { makeHandleToolInvocation } from 'n8n-core/dist/execution-engine/node-execution-context/utils/get-input-connection-data';
import type { IDataObject, INode, INodeParameters, IRunExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';
import { ExecutionLifecycleHooks } from 'n8n-core';

import {
	additionalDataFor,
	loadPackage,
	nodeCredentials,
	PACKAGE_NAME,
	type VoiceAgentCredentials,
} from './n8n.cts';

export interface ToolExecution {
	/** One use of the tool with the model's arguments: n8n's answer to the model, or the error it throws. */
	use(args: IDataObject): Promise<string>;
	runExecutionData: IRunExecutionData;
}

/** One execution of a workflow whose AI Agent has the Voice Agent node as its tool. */
export async function toolExecution(
	credentials: VoiceAgentCredentials,
	parameters: INodeParameters,
	settings: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries'> = {},
	executionId = 'tool-execution',
): Promise<ToolExecution> {
	const pkg = await loadPackage();
	const tool: INode = {
		id: 'b5f9d2c6-0000-4000-8000-000000000002',
		name: 'Place Call',
		type: `${PACKAGE_NAME}.voiceAgentTool`,
		typeVersion: 1.2,
		position: [0, 0],
		parameters,
		credentials: nodeCredentials(),
		...settings,
	};
	const agent: INode = {
		id: 'b5f9d2c6-0000-4000-8000-000000000003',
		name: 'AI Agent',
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: 2.2,
		position: [200, 0],
		parameters: {},
	};
	const workflow = new Workflow({
		id: 'tool-workflow',
		name: 'Tool',
		// The agent node itself is not loaded here: only its tool runs, with the agent as its parent.
		nodes: [tool],
		connections: {},
		active: false,
		nodeTypes: pkg.nodeTypes,
		settings: {},
	});
	const hooks = new ExecutionLifecycleHooks('manual', executionId, {
		id: 'tool-workflow',
		nodes: [tool, agent],
		connections: {},
		settings: {},
	} as never);
	const additionalData = additionalDataFor(pkg, credentials, hooks);
	additionalData.executionId = executionId;
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [],
			waitingExecution: {},
			waitingExecutionSource: null,
		},
	} as unknown as IRunExecutionData;
	const executeData = { node: agent, data: { main: [[{ json: {} }]] }, source: null };
	const nodeType = pkg.nodeTypes.getByNameAndVersion(tool.type, tool.typeVersion);
	const use = makeHandleToolInvocation(
		(runIndex: number) =>
			new SupplyDataContext(
				workflow,
				tool,
				additionalData,
				'manual',
				runExecutionData,
				runIndex,
				[],
				{},
				NodeConnectionTypes.AiTool,
				executeData as never,
				[],
				undefined,
				agent,
			),
		tool,
		nodeType as never,
		runExecutionData,
	) as (args: IDataObject) => Promise<string>;
	return { use, runExecutionData };
}
