/**
 * The example workflows a newcomer opens first: every node of this package in them is at the version a
 * new node gets (its default version), so copying an example never gives the unguarded node, and each
 * Call → Create keeps the options a builder should keep. Read as n8n's own loader reads the package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { INode, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { loadPackage, PACKAGE_NAME } from '../support/n8n.cts';

const EXAMPLES_DIR = path.resolve(__dirname, '../../examples');
const EXAMPLES = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json'));

interface Workflow {
	name: string;
	nodes: INode[];
}

const readExample = (file: string): Workflow =>
	JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Workflow;

/** The package's own nodes in an example, with the description n8n loads for their type. */
async function packageNodes(workflow: Workflow) {
	const pkg = await loadPackage();
	return workflow.nodes
		.filter((node) => node.type.startsWith(`${PACKAGE_NAME}.`))
		.map((node) => ({
			node,
			description: pkg.node(node.type).description as INodeTypeDescription,
		}));
}

/** The latest version of a node type: the one the editor gives a new node. */
function latestVersion(description: INodeTypeDescription): number {
	const versions = Array.isArray(description.version) ? description.version : [description.version];
	return description.defaultVersion ?? Math.max(...versions);
}

/** A node's parameters as n8n resolves them, its defaults included. */
function resolved({ node, description }: { node: INode; description: INodeTypeDescription }) {
	return NodeHelpers.getNodeParameters(
		description.properties,
		node.parameters,
		true,
		false,
		node,
		description,
	)!;
}

test('there are examples to check', () => {
	expect(EXAMPLES.length).toBeGreaterThanOrEqual(7);
});

describe.each(EXAMPLES)('example %s', (file) => {
	test("each Voice Agent node is at its node's current version", async () => {
		const nodes = await packageNodes(readExample(file));
		expect(nodes.length).toBeGreaterThan(0);
		const lagging = nodes
			.filter(({ node, description }) => node.typeVersion !== latestVersion(description))
			.map(
				({ node, description }) =>
					`${node.name}: ${node.typeVersion} < ${latestVersion(description)}`,
			);
		expect(lagging).toEqual([]);
	});

	test('each Call → Create keeps the skip window, and Calling Hours when it calls a list', async () => {
		const creates = (await packageNodes(readExample(file))).filter((entry) => {
			const parameters = resolved(entry);
			return parameters.resource === 'call' && parameters.operation === 'create';
		});
		for (const entry of creates) {
			const parameters = resolved(entry);
			expect(Number(parameters.skipCalledWithinMinutes)).toBeGreaterThan(0);
			const options = parameters.options as Record<string, unknown>;
			// A list: the node places several calls at once or is fed by a list of leads.
			if (Number(options.callsAtOnce ?? 1) > 1)
				expect(options.callingHours).toMatchObject({ hours: expect.any(Object) });
		}
	});
});
