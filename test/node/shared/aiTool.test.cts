/**
 * The Voice Agent node as an AI Agent's tool: a default operation that reads, and descriptions that say
 * what each operation does in the world. Run in n8n's engine against the sandbox, and through n8n's own
 * helpers for defaults and tool descriptions.
 */
import type { INode, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { createAgent, placeCall, wireLines } from '../../support/api.cts';
import { loadPackage, nodeCredentials, PACKAGE_NAME, rl } from '../../support/n8n.cts';
import { jsonOf, runNode } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

describe('the default operation reads', () => {
	async function description(): Promise<INodeTypeDescription> {
		return (await loadPackage()).node(`${PACKAGE_NAME}.voiceAgent`).description;
	}

	function node(typeVersion: number, parameters: INode['parameters'] = {}): INode {
		return {
			id: 'a1a1a1a1-0000-4000-8000-000000000001',
			name: 'Voice Agent',
			type: `${PACKAGE_NAME}.voiceAgent`,
			typeVersion,
			position: [0, 0],
			parameters,
			credentials: nodeCredentials(),
		};
	}

	/** The parameters n8n resolves for a node, its defaults included. */
	async function resolved(typeVersion: number, parameters: INode['parameters'] = {}) {
		const type = await description();
		return NodeHelpers.getNodeParameters(
			type.properties,
			parameters,
			true,
			false,
			node(typeVersion, parameters),
			type,
		);
	}

	test('a new node (version 1.4) and version 1.1 to 1.3 nodes default to Call → Get, and Agent → Get', async () => {
		expect((await description()).defaultVersion).toBe(1.4);
		for (const version of [1.1, 1.2, 1.3, 1.4]) {
			expect(await resolved(version)).toMatchObject({ resource: 'call', operation: 'get' });
			expect(await resolved(version, { resource: 'agent' })).toMatchObject({ operation: 'get' });
		}
	});

	test('a new node with nothing but a call ID reads that call', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox));
		await sandbox.clearRequests();

		const run = await runNode({
			parameters: { callId: call.id },
			typeVersion: 1.1,
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		});

		expect(jsonOf(run).map((item) => item.id)).toEqual([call.id]);
		expect(await wireLines(sandbox)).toEqual(['GET /call 200']);
	});

	test('a version 1 node saved without an operation still places its call, as before', async () => {
		const agent = await createAgent(sandbox);
		// n8n saves a parameter only when it differs from its default: Create was version 1's default.
		const saved = NodeHelpers.getNodeParameters(
			(await description()).properties,
			{ resource: 'call', operation: 'create', from: rl(agent.id), to: '+14155550123' },
			false,
			false,
			node(1),
			await description(),
		);
		expect(saved).not.toHaveProperty('operation');

		const run = await runNode({
			parameters: saved!,
			typeVersion: 1,
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		});

		expect(jsonOf(run)[0]).toMatchObject({ to: '+14155550123', status: 'in_progress' });
	});
});

/**
 * The node's tool variant as n8n builds it (n8n's `convertNodeToAiTool`, 1.123 and 2.41): its type name
 * ends in `Tool`, and since the node has its own `toolDescription` parameter, n8n adds no Description
 * parameters of its own.
 */
async function toolVariant(): Promise<INodeTypeDescription> {
	const type = structuredClone(
		(await loadPackage()).node(`${PACKAGE_NAME}.voiceAgent`).description,
	);
	return { ...type, name: `${type.name}Tool`, displayName: `${type.displayName} Tool` };
}

/** A tool node as n8n's engine sees it: the saved parameters resolved with their defaults. */
function toolNode(type: INodeTypeDescription, typeVersion: number, saved: INode['parameters']) {
	const node: INode = {
		id: 'b2b2b2b2-0000-4000-8000-000000000001',
		name: 'Voice Agent',
		type: `${PACKAGE_NAME}.voiceAgentTool`,
		typeVersion,
		position: [0, 0],
		parameters: saved,
	};
	node.parameters = NodeHelpers.getNodeParameters(type.properties, saved, true, false, node, type)!;
	return node;
}

/** What MCP clients and the AI Agent were told before the action names became short: unchanged. */
const TOLD_BEFORE: Array<[string, string, string]> = [
	[
		'call',
		'create',
		'Place a real phone call to an allowed number within an hourly budget in Voice Agent',
	],
	['call', 'get', 'Get a call without changing anything in Voice Agent'],
	['call', 'getMany', 'Get many calls without changing anything in Voice Agent'],
	['call', 'setContext', 'Set the context of a live call with an allowed number in Voice Agent'],
	['agent', 'upsert', 'Create or update an agent in Voice Agent'],
	['agent', 'delete', 'Delete an agent in Voice Agent'],
	['agent', 'get', 'Get an agent without changing anything in Voice Agent'],
	['agent', 'getMany', 'Get many agents without changing anything in Voice Agent'],
];

describe('what an AI model is told about each operation', () => {
	test.each(TOLD_BEFORE)(
		'%s → %s: "%s", for a tool saved with Description set automatically and for a new one',
		async (resource, operation, toolDescription) => {
			const type = await toolVariant();
			for (const typeVersion of [1.1, 1.4]) {
				// Tool nodes saved before this version keep `descriptionType: 'auto'`.
				for (const saved of [
					{ resource, operation, descriptionType: 'auto' },
					{ resource, operation },
				])
					expect(
						NodeHelpers.getToolDescriptionForNode(toolNode(type, typeVersion, saved), {
							description: type,
						} as never),
					).toBe(toolDescription);
			}
		},
	);

	test('a new tool node (no operation chosen) is told what the default operation does', async () => {
		const type = await toolVariant();
		const describe = (typeVersion: number) =>
			NodeHelpers.getToolDescriptionForNode(toolNode(type, typeVersion, {}), {
				description: type,
			} as never);
		expect(describe(1.4)).toBe('Get a call without changing anything in Voice Agent');
		expect(describe(1)).toBe(
			'Place a real phone call to an allowed number within an hourly budget in Voice Agent',
		);
	});

	test('a description the builder wrote is what the model reads', async () => {
		const type = await toolVariant();
		const node = toolNode(type, 1.4, {
			resource: 'call',
			operation: 'create',
			descriptionType: 'manual',
			toolDescription: 'Call the customer back about their order',
		});
		expect(NodeHelpers.getToolDescriptionForNode(node, { description: type } as never)).toBe(
			'Call the customer back about their order',
		);
	});

	test('the Description parameter is only on the tool, not on the regular node', async () => {
		const type = (await loadPackage()).node(`${PACKAGE_NAME}.voiceAgent`).description;
		const node = { ...toolNode(type, 1.4, {}), type: `${PACKAGE_NAME}.voiceAgent` };
		const resolved = NodeHelpers.getNodeParameters(
			type.properties,
			{ resource: 'call', operation: 'create' },
			true,
			false,
			node,
			type,
		);
		expect(resolved).not.toHaveProperty('toolDescription');
	});

	test("each operation's description says whether it acts in the world", async () => {
		const type = (await loadPackage()).node(`${PACKAGE_NAME}.voiceAgent`).description;
		const descriptions = Object.fromEntries(
			type.properties
				.filter((property) => property.name === 'operation')
				.flatMap((property) =>
					(property.options as Array<{ value: string; description: string }>).map((option) => [
						`${property.displayOptions?.show?.resource}.${option.value}`,
						option.description,
					]),
				),
		);
		expect(descriptions['call.create']).toBe(
			"Places a real phone call from the agent's number to the number given, only to numbers in Allowed Destinations; as an AI tool it calls nobody without them, at most Max Calls per Run times per execution and at most Max Calls per Hour times an hour per agent",
		);
		expect(descriptions['call.setContext']).toMatch(
			/Only calls with numbers in Allowed Destinations; as an AI tool none without them\.$/,
		);
		for (const read of ['call.get', 'call.getMany', 'agent.get', 'agent.getMany'])
			expect(descriptions[read]).toMatch(/changes nothing$/);
	});
});
