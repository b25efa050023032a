import type { IExecuteFunctions } from 'n8n-workflow';

import { listAgents } from '../../../../../shared/api/agents';
import { dataProblemError } from '../../../../../shared/errors';
import { readOncePerRun } from '../../../../../shared/runCache';
import type { HourBudget } from './callsPerHour';

/** What decides whose calls an item's Max Calls per Hour counts. */
interface BudgetRequest {
	context: IExecuteFunctions;
	/** The account's fingerprint (accountOf). */
	account: string;
	/** The agent, when From named it (by list, ID or name). */
	agentId: string | undefined;
	fromNumber: string;
	itemIndex: number;
	/** Max Calls per Hour; 0: none. */
	max: number;
}

/**
 * The budget of the item's agent, undefined when there is none. With From given by phone number, the
 * budget counts the calls of the account's agent that owns that number, found in the agent list once per
 * node run; a number no agent owns fails before anything is sent: the budget could not be counted.
 */
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
