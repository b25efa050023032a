import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { getAgent } from '../../../shared/api/agents';
import {
	agentLocator,
	type AgentLocatorValue,
	type ResolvedAgent,
} from '../../../shared/parameters/agent';
import { dataProblemError } from '../../../shared/errors';
import { readOncePerRun } from '../../../shared/runCache';
import { INPUT_LIMITS, type InputValidator } from '../../../shared/validation';

/** Call → Create's From: the agent that places the call, or the number it calls from. */
export const fromProperty: INodeProperties = agentLocator({
	displayName: 'From (Agent)',
	name: 'from',
	description:
		'The agent that places the call: the call is made from its phone number. Pick it, give its ID, its exact name, or its phone number.',
	modes: [
		...(agentLocator().modes ?? []),
		{
			displayName: 'By Phone Number',
			name: 'phoneNumber',
			type: 'string',
			placeholder: 'e.g. +14155550100',
		},
	],
});

/** The phone number of an agent known by ID, fetched once per node run and agent. */
async function fetchedPhoneNumber(context: IExecuteFunctions, agentId: string): Promise<string> {
	return await readOncePerRun(context, `phoneNumber:${agentId}`, async () => {
		const agent = await getAgent(context, agentId);
		return agent.phone_number ?? '';
	});
}

/** The number the agent calls from; an agent found by name brings it from the agent list. */
export async function agentPhoneNumber(
	context: IExecuteFunctions,
	{ id, agent }: ResolvedAgent,
	itemIndex: number,
): Promise<string> {
	const number = agent ? (agent.phone_number ?? '') : await fetchedPhoneNumber(context, id);
	if (!number) {
		const message = `Agent "${agent?.name ?? id}" has no phone number to call from`;
		throw dataProblemError(context.getNode(), { message, itemIndex });
	}
	return number;
}

/** From in every mode, checked on its face: a number in E.164, or a non-empty ID or name. */
export function checkFrom(
	validate: InputValidator,
	from: AgentLocatorValue | undefined,
	field: string,
): AgentLocatorValue {
	const mode = from?.mode ?? 'id';
	if (mode === 'phoneNumber') return { mode, value: validate.e164(from?.value, field) };
	if (mode === 'name')
		return {
			mode,
			value: validate.nonEmptyString(from?.value, field, INPUT_LIMITS.nameLength),
		};
	return { mode, value: validate.id(from?.value, field) };
}
