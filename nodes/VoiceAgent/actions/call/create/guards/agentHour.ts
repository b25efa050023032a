import type { IExecuteFunctions } from 'n8n-workflow';

import { listAgents } from '../../../../../shared/api/agents';
import { dataProblemError } from '../../../../../shared/errors';
import { readOncePerRun } from '../../../../../shared/runCache';
import type { HourBudget } from './callsPerHour';

interface BudgetRequest {
	context: IExecuteFunctions;
	account: string;
	agentId: string | undefined;
	fromNumber: string;
	itemIndex: number;
	max: number;
}

/** From given by phone number: the agent owning it counts (a number no agent owns fails before sending). */
export async function hourBudgetOf(request: BudgetRequest): Promise<HourBudget | undefined> {
	const { context, account, fromNumber, itemIndex, max } = request;
	if (max <= 0) return undefined;
	const agentId =
		request.agentId ??
		(await readOncePerRun(context, `agentOfNumber:${fromNumber}`, async () => {
			const agents = await listAgents(context);
			return agents.find((agent) => agent.phone_number === fromNumber)?.id;
		}));
	if (agentId === undefined) {
		throw dataProblemError(context.getNode(), {
			message: `Max Calls per Hour (${max}) cannot be counted: no agent of this account calls from ${fromNumber} [item ${itemIndex}]`,
			description:
				"Max Calls per Hour counts the agent's calls. Give From as the agent (from the list, by ID or by name), or set Max Calls per Hour to 0.",
			itemIndex,
		});
	}
	return { max, agentId, key: `${account}|${agentId}` };
}
