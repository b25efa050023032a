import type { INode } from 'n8n-workflow';

/** The Voice Agent node as n8n describes it, for pure unit tests that need a node and nothing else. */
export function stubNode(settings: Partial<INode> = {}): INode {
	return {
		id: 'n1',
		name: 'Voice Agent',
		type: 'n8n-nodes-voice-agent.voiceAgent',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		...settings,
	};
}
