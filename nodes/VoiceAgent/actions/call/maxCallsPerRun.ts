import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { oncePerRun } from '../../../shared/runCache';
import type { InputValidator } from '../../../shared/validation';
import { runsAsTool } from './allowedDestinations';
import { executionContextOf } from './callMemory';

/** An AI Agent's tool places one call per execution unless the workflow allows more. */
const TOOL_DEFAULT_MAX_CALLS = 1;
const FIELD = 'Max Calls per Run';
const COUNT_KEY = 'voiceAgentCallsReserved';

/** Call → Create's cap on the calls one execution places, e.g. an AI model calling the tool in a loop. */
export const maxCallsPerRunOption: INodeProperties = {
	displayName: FIELD,
	name: 'maxCallsPerRun',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: TOOL_DEFAULT_MAX_CALLS,
	description: `At most this many calls placed by this node in one execution, all its runs together (an AI Agent may use it several times). A call over the limit fails before anything is sent. 0: no limit. Not set: ${TOOL_DEFAULT_MAX_CALLS} when the node is an AI tool, no limit otherwise.`,
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
 * Takes one of the execution's call slots, or fails when none is left. Synchronous, so calls placed at
 * the same time never take the same slot; the count lives in the node's execution context, so every
 * run of the node in the execution shares it. Returns how to give the slot back (no call was placed).
 */
export function reserveCallSlot(
	context: IExecuteFunctions,
	validate: InputValidator,
	max: number,
	to: string,
): () => void {
	// Where n8n gives no execution context, the count holds for this run of the node only.
	const nodeContext =
		executionContextOf(context) ?? oncePerRun<IDataObject>(context, 'callSlots', () => ({}));
	const taken = (nodeContext[COUNT_KEY] as number | undefined) ?? 0;
	if (max > 0 && taken >= max) {
		validate.fail(
			FIELD,
			`(${max}) is reached: this node already placed ${taken} call${taken === 1 ? '' : 's'} in this execution, so the call to ${to} was not placed`,
			`Raise ${FIELD} (Call → Create → Options) to place more calls in one execution.`,
		);
	}
	nodeContext[COUNT_KEY] = taken + 1;
	let released = false;
	return () => {
		if (released) return;
		released = true;
		nodeContext[COUNT_KEY] = ((nodeContext[COUNT_KEY] as number) ?? 1) - 1;
	};
}
