import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../../../../../shared/validation';
import { runsAsTool } from '../../allowedDestinations';
import { callsCounted, type CallLedger } from '../records/callLedger';

/** An AI Agent's tool places one call per execution unless the workflow allows more. */
const TOOL_DEFAULT_MAX_CALLS = 1;
const FIELD = 'Max Calls per Run';

/** Call → Create's cap on the calls one execution places, e.g. an AI model calling the tool in a loop. */
export const maxCallsPerRunOption: INodeProperties = {
	displayName: FIELD,
	name: 'maxCallsPerRun',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: TOOL_DEFAULT_MAX_CALLS,
	description: `At most this many calls in one run of the workflow, however often the node runs in it (an AI Agent may use it several times). A call over the limit fails before anything is dialled. 0: no limit. Without this option: ${TOOL_DEFAULT_MAX_CALLS} as an AI tool, no limit otherwise.`,
};

/** The item's limit: 0 for none. */
export function maxCallsPerRun(
	context: IExecuteFunctions,
	validate: InputValidator,
	options: IDataObject,
): number {
	if (options.maxCallsPerRun === undefined) return runsAsTool(context) ? TOOL_DEFAULT_MAX_CALLS : 0;
	return validate.integer(options.maxCallsPerRun, FIELD, 0);
}

/**
 * Fails when the execution's calls have reached the limit. The count is read from the ledger (every
 * record that may have phoned someone), in the same synchronous step as the record that follows it, so
 * uses of the node running at the same time never both take the last call.
 */
export function checkCallLimit(
	ledger: CallLedger,
	validate: InputValidator,
	max: number,
	to: string,
): void {
	const taken = callsCounted(ledger);
	if (max > 0 && taken >= max) {
		validate.fail(
			FIELD,
			`(${max}) is reached: this node already placed ${taken} call${taken === 1 ? '' : 's'} in this execution, so the call to ${to} was not placed`,
			`Raise ${FIELD} (Call → Create → Options) to place more calls in one execution.`,
		);
	}
}
