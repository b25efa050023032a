/**
 * A stub of n8n's execute context for Call → Create's re-run rules, which read only the node, its
 * settings and the node's execution context (the engine tests in test/node/call/ run them for real).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

export const node: INode = {
	id: 'n1',
	name: 'Voice Agent',
	type: 'n8n-nodes-voice-agent.voiceAgent',
	typeVersion: 1.2,
	position: [0, 0],
	parameters: {},
};

export function contextWith(nodeContext: IDataObject | undefined, settings: Partial<INode> = {}) {
	return {
		getNode: () => ({ ...node, ...settings }),
		...(nodeContext ? { getContext: () => nodeContext } : {}),
	} as unknown as IExecuteFunctions;
}
