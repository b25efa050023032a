/**
 * A stub of n8n's execute context for Call → Create's re-run rules, which read only the node, its
 * settings and the node's execution context (the engine tests in test/node/call/ run them for real).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { stubNode } from '../../support/stubNode.cts';

export const node = stubNode({ typeVersion: 1.2 });

export function contextWith(nodeContext: IDataObject | undefined, settings: Partial<INode> = {}) {
	return {
		getNode: () => ({ ...node, ...settings }),
		...(nodeContext ? { getContext: () => nodeContext } : {}),
	} as unknown as IExecuteFunctions;
}
