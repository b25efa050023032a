import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { cancellationError } from '../../../shared/errors';
import { labelsByName } from '../../../shared/fields';
import { cancelledError, cancelSignalOf } from '../../../shared/transport/cancel';
import { InputValidator } from '../../../shared/validation';
import { failedItemOutput } from '../itemFailure';
import { CallPace } from './pace';
import { WaitSchedule } from './waitSchedule';

/**
 * The most calls in progress at once. A batch of calls is paced by the people who take them, not by
 * n8n: 50 keeps a campaign well inside what voice services allow an account at once (typically 10 to
 * 100 concurrent calls), and the checks of 50 waiting calls stay under 2 requests a second.
 */
const MAX_CALLS_AT_ONCE = 50;
/** One call a second at most: above that, Retry-After and the service's own limits decide anyway. */
const MAX_CALLS_PER_MINUTE = 60 * 60;

export const batchOptions: INodeProperties[] = [
	{
		displayName: 'Calls at Once',
		name: 'callsAtOnce',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CALLS_AT_ONCE },
		default: 1,
		description: `How many calls of this run may be in progress at the same time, at most ${MAX_CALLS_AT_ONCE}. When waiting for calls to end, a new call starts when one ends; otherwise as soon as the pace allows. Outputs keep the order of the input items. Read from the first item.`,
	},
	{
		displayName: 'Max New Calls per Minute',
		name: 'maxCallsPerMinute',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_CALLS_PER_MINUTE },
		default: 0,
		description:
			'Never more calls placed than this in any 60 seconds (0 or empty: no limit). A "too many requests" answer from the service pauses every call of the run for as long as it asks. Read from the first item.',
	},
];

const LABELS = labelsByName(batchOptions);

interface BatchSettings {
	callsAtOnce: number;
	maxCallsPerMinute: number | undefined;
}

/** Calls at Once and the pace, from the first item's Options (they hold for the whole run). */
function batchSettings(context: IExecuteFunctions): BatchSettings {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const validate = new InputValidator(context.getNode(), 0);
	const callsAtOnce = validate.integer(
		options.callsAtOnce ?? 1,
		LABELS.callsAtOnce,
		1,
		MAX_CALLS_AT_ONCE,
	);
	const perMinute = options.maxCallsPerMinute;
	const noLimit =
		perMinute === undefined || perMinute === null || perMinute === '' || perMinute === 0;
	return {
		callsAtOnce,
		maxCallsPerMinute: noLimit
			? undefined
			: validate.integer(perMinute, LABELS.maxCallsPerMinute, 1, MAX_CALLS_PER_MINUTE),
	};
}

/** What the calls of a batch share: the pace of POST /call and one schedule for all waits. */
export interface BatchSeams {
	pace?: CallPace;
	schedule?: WaitSchedule;
}

/** The per-item unit of Create, as the batch runs it. */
interface CallSteps {
	/** Checks the item's input without sending anything; throws the item's input error. */
	check(context: IExecuteFunctions, itemIndex: number): unknown;
	/** Validate → place once → wait, for one item. */
	run(context: IExecuteFunctions, itemIndex: number, seams: BatchSeams): Promise<IDataObject>;
}

/** How the items of a run came out, for the node's hint. */
class Progress {
	placed = 0;
	ended = 0;
	failed = 0;
	skipped = 0;

	count(json: IDataObject): void {
		if (json.skipped === true) this.skipped++;
		else this.placed++;
		if (json.ended === true) this.ended++;
	}

	get message(): string {
		return `Calls: ${this.placed} placed, ${this.ended} ended, ${this.failed} failed, ${this.skipped} skipped`;
	}
}

/** For the calls still waiting for their pace slot when the batch stops: they were never sent. */
function notPlacedError(context: IExecuteFunctions) {
	return cancellationError(context.getNode(), {
		message: 'Not placed: the run stopped at an earlier item that failed',
	});
}

/**
 * Runs Create for every item, up to Calls at Once of them in progress at the same time, new calls
 * paced, all waits on one schedule. Every item's input is checked before the first call is placed.
 * Outputs come in input order, each paired with its item; a failed item is an error item with
 * "On Error → Continue", otherwise no new call starts, every wait stops, and the error stops the node.
 */
export async function runCallBatch(
	context: IExecuteFunctions,
	steps: CallSteps,
): Promise<INodeExecutionData[]> {
	const items = context.getInputData();
	const settings = batchSettings(context);
	const outputs: INodeExecutionData[][] = new Array(items.length);
	const progress = new Progress();
	const ready: number[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			steps.check(context, itemIndex);
			ready.push(itemIndex);
		} catch (error) {
			progress.failed++;
			outputs[itemIndex] = failedItemOutput(context, itemIndex, error);
		}
	}

	const seams: BatchSeams = {
		pace: new CallPace(context, settings.maxCallsPerMinute),
		schedule: new WaitSchedule(context),
	};
	const signal = cancelSignalOf(context);
	let fatal: unknown;
	let next = 0;
	const worker = async () => {
		while (fatal === undefined && !signal?.aborted && next < ready.length) {
			const itemIndex = ready[next++];
			try {
				const json = await steps.run(context, itemIndex, seams);
				progress.count(json);
				outputs[itemIndex] = [{ json, pairedItem: { item: itemIndex } }];
			} catch (error) {
				progress.failed++;
				try {
					outputs[itemIndex] = failedItemOutput(context, itemIndex, error);
				} catch (itemError) {
					fatal ??= itemError;
					// Calls still waiting for their pace slot were never sent: their error must say so, not
					// carry the failed item's error (which may be an ambiguous "may have been placed").
					seams.pace?.stop(notPlacedError(context));
					seams.schedule?.stop(fatal);
				}
			}
		}
	};
	const workers = Math.min(settings.callsAtOnce, ready.length);
	await Promise.all(Array.from({ length: workers }, worker));

	context.addExecutionHints({ message: progress.message, type: 'info', location: 'outputPane' });
	if (fatal !== undefined) throw fatal;
	if (signal?.aborted) throw cancelledError(context);
	return outputs.flat();
}
