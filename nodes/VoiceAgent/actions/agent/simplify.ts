import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Agent } from '../../../shared/types';

/**
 * The fields a workflow maps into a CRM or a sheet: who the agent is, the number it calls from, how it
 * sounds and where its events go. Prompts, tools, actions and compliance checks stay out.
 */
const SIMPLIFIED_AGENT_FIELDS = [
	'id',
	'name',
	'phone_number',
	'voice_id',
	'language',
	'llm_model',
	'webhook',
	'voicemail_number',
	'created_at',
	'updated_at',
] as const;

/** Simplify for Agent → Get and Get Many; from node version 1.2 only, so older nodes keep their output. */
export const simplifyOption = (operation: 'get' | 'getMany'): INodeProperties => ({
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return a simplified version of the response instead of the raw data: ID, name, phone number, voice, language, model, webhook, voicemail number and the dates, without prompts, tools, actions and compliance checks',
	displayOptions: {
		show: { resource: ['agent'], operation: [operation], '@version': [{ _cnd: { gte: 1.2 } }] },
	},
});

/** Whether this item's output is simplified; a node before version 1.2 has no Simplify and never is. */
export function simplifyEnabled(context: IExecuteFunctions, itemIndex: number): boolean {
	return context.getNodeParameter('simplify', itemIndex, false) === true;
}

/** The agent with the simplified fields only, in their order; a field the answer lacks stays out. */
export function simplifyAgent(agent: Agent): Agent {
	const simplified: IDataObject = {};
	for (const field of SIMPLIFIED_AGENT_FIELDS) {
		if (agent[field] !== undefined) simplified[field] = agent[field];
	}
	return simplified as Agent;
}
