// Pieces of the workflows the e2e suites import: a Manual Trigger (what `n8n execute` starts from), a
// list turned into one item per entry, and nodes connected one after the other.

/** A Manual Trigger named "Run". */
export function manualTrigger() {
	return {
		name: 'Run',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

/**
 * A Set node holding `list` under `field` and a Split Out node that makes one item per entry: each
 * item's `$json[field]` is an entry (all of it, when the entries are objects).
 */
export function listAsItems(field, list) {
	return [
		{
			name: 'List',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: {
				assignments: {
					assignments: [
						{
							id: 'a0000001-0000-4000-8000-000000000000',
							name: field,
							type: 'array',
							value: `={{ ${JSON.stringify(list)} }}`,
						},
					],
				},
				options: {},
			},
		},
		{
			name: 'One item per entry',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [400, 0],
			parameters: { fieldToSplitOut: field, include: 'noOtherFields', options: {} },
		},
	];
}

/** The connections of nodes that follow each other: each one's main output into the next one. */
export function chain(nodes) {
	const connections = {};
	for (let index = 0; index + 1 < nodes.length; index++) {
		connections[nodes[index].name] = {
			main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]],
		};
	}
	return connections;
}
