import type { IDataObject, IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import type { NewCall } from '../../../shared/api/calls';
import { configurationError, noAnswerError } from '../../../shared/errors';
import { oncePerRun } from '../../../shared/runCache';
import { runsAsTool } from './allowedDestinations';

/**
 * What the node remembers of a call it set out to place, in the execution's node context
 * (`getContext('node')`). n8n keeps that object across the tries of *Retry On Fail* and saves it with
 * the execution, so *Retry execution* finds it too.
 */
interface PlacedCall {
	from: string;
	to: string;
	/** The call placed; none when the service never confirmed it (the outcome is unknown). */
	callId?: string;
	/** The execution that placed it: another one is a *Retry execution* of it. */
	executionId: string;
}

const MEMORY_KEY = 'voiceAgentPlacedCalls';

type Memory = Record<string, PlacedCall>;

/** The node's execution context, which outlives a run of the node; undefined where n8n gives none. */
export function executionContextOf(context: IExecuteFunctions): IDataObject | undefined {
	return typeof context.getContext === 'function' ? context.getContext('node') : undefined;
}

function memoryOf(context: IExecuteFunctions): Memory | undefined {
	// Without a node context the node cannot tell a re-run from a first run: it then refuses re-runs.
	const nodeContext = executionContextOf(context);
	if (!nodeContext) return undefined;
	nodeContext[MEMORY_KEY] ??= {};
	return nodeContext[MEMORY_KEY] as Memory;
}

/**
 * The item's place in the execution: a node that runs several times (a loop) gets a new run index
 * each time, so its items never meet the calls of another run's items. An AI tool gets a new run index
 * for every use and every retry, so there the number is the place: a tool dials a number once per execution.
 */
function slotOf(context: IExecuteFunctions, itemIndex: number, body: NewCall): string {
	if (runsAsTool(context)) return `tool:${body.from}:${body.to}`;
	return `${runIndexOf(context)}:${itemIndex}`;
}

/** The node run's index, the same for all its items: read once per run (a data proxy is not cheap). */
function runIndexOf(context: IExecuteFunctions): number {
	return oncePerRun(context, 'runIndex', () => context.getWorkflowDataProxy(0).$runIndex as number);
}

/**
 * The call this item placed in an earlier run of the node in this execution, when it dialled the same
 * number from the same agent; a changed From or To (e.g. *Retry with currently saved workflow*) is a
 * new call. Fails for an earlier attempt whose outcome is unknown: it may have phoned already.
 */
export function rememberedCall(
	context: IExecuteFunctions,
	itemIndex: number,
	body: NewCall,
): PlacedCall | undefined {
	const memory = memoryOf(context);
	if (!memory) {
		if (context.getNode().retryOnFail === true) {
			throw configurationError(context.getNode(), {
				message: `Retry On Fail cannot be used with Call → Create in this n8n: a retry would phone every number again [item ${itemIndex}]`,
				description: 'Turn off Retry On Fail in the node settings.',
				itemIndex,
			});
		}
		return undefined;
	}
	const placed = memory[slotOf(context, itemIndex, body)];
	if (!placed || placed.from !== body.from || placed.to !== body.to) return undefined;
	if (placed.callId === undefined) {
		throw mayHaveBeenPlacedError(
			context,
			body,
			itemIndex,
			'an earlier run of this node',
			'An earlier try of this item (Retry On Fail, or the execution this one retries) got no answer from the service, so the node cannot tell whether that call was placed.',
		);
	}
	return placed;
}

/** An earlier attempt's call to the number may have been placed: this item does not dial it again. */
export function mayHaveBeenPlacedError(
	context: IExecuteFunctions,
	body: NewCall,
	itemIndex: number,
	placedBy: string,
	why: string,
): NodeApiError {
	const text = {
		message: `The call to ${body.to} may have been placed by ${placedBy}: not placed again, check the call list [item ${itemIndex}]`,
		description: `${why} It does not dial again, so that nobody is phoned twice.`,
		itemIndex,
	};
	return noAnswerError(context.getNode(), text, { outcomeUnknown: true });
}

/** Notes that this item is about to dial (no call ID yet), so that a re-run never dials blind. */
export function rememberAttempt(context: IExecuteFunctions, itemIndex: number, body: NewCall) {
	const memory = memoryOf(context);
	if (!memory) return;
	memory[slotOf(context, itemIndex, body)] = {
		from: body.from,
		to: body.to,
		executionId: context.getExecutionId(),
	};
}

/** Notes the call the item placed; `undefined` forgets the attempt (the service refused it). */
export function rememberOutcome(
	context: IExecuteFunctions,
	itemIndex: number,
	body: NewCall,
	callId: string | undefined,
) {
	const memory = memoryOf(context);
	if (!memory) return;
	const slot = slotOf(context, itemIndex, body);
	if (callId === undefined) delete memory[slot];
	else if (memory[slot]) memory[slot].callId = callId;
}
