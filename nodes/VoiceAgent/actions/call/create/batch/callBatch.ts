import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { cancellationError } from '../../../../../shared/errors';
import { labelsByName } from '../../../../../shared/fields';
import { cancelledError, cancelSignalOf } from '../../../../../shared/transport/cancel';
import { hasEnded } from '../../../../../shared/callStatus';
import type { Call } from '../../../../../shared/types';
import { InputValidator } from '../../../../../shared/validation';
import { failedItemOutput } from '../../../itemFailure';
import { accountOf } from '../../../../../shared/transport/request';
import type { CallLedger } from '../model';
import { Progress } from './progress';
import { callSeenEnded, type BatchSeams } from '../attempts/placeAndWait';
import { nodeSlotsOf, type NodeSlots } from './nodeSlots';
import { CallPace } from './pace';
import { releasedOutput, slotHoldOption } from './slotHold';
import { WaitSchedule } from '../../waitSchedule';

/** Well inside what voice services allow an account (10 to 100 at once); 50 waits' checks stay under 2 req/s. */
const MAX_CALLS_AT_ONCE = 50;
const HELD_CHECK_MS = 3_000;
/** One call a second at most: above that, Retry-After and the service's own limits decide anyway. */
const MAX_CALLS_PER_MINUTE = 60 * 60;
/** The longest the loops over all items keep n8n's event loop (webhooks wait). */
const YIELD_AFTER_MS = 10;

export const batchOptions: INodeProperties[] = [
	{
		displayName: 'Calls at Once',
		name: 'callsAtOnce',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CALLS_AT_ONCE },
		default: 1,
		description: `How many calls this node places at the same time (1 to ${MAX_CALLS_AT_ONCE}). Keep 1 to call a list one lead after another; raise it to finish a long list sooner.`,
	},
	{
		displayName: 'Max New Calls per Minute',
		name: 'maxCallsPerMinute',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_CALLS_PER_MINUTE },
		default: 0,
		description:
			'The most new calls this node starts in any minute (0: no limit). Set it when your plan or the people answering need an even pace.',
	},
	slotHoldOption,
];

const LABELS = labelsByName(batchOptions);

function eventLoopTurns(): () => Promise<void> {
	let since = Date.now();
	return async () => {
		if (Date.now() - since < YIELD_AFTER_MS) return;
		await sleep(0);
		since = Date.now();
	};
}

/** Calls at Once and the pace, from the first item's Options (they hold for the whole run). */
function batchSettings(context: IExecuteFunctions) {
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

/**
 * Create's per-item steps: `check` sends nothing; `prepare` (agents looked up) runs for every item first;
 * `liveCallOf` is the item's call placed and not seen to end; `slotHoldMs` (slotHold.ts): undefined holds
 * no slot, Infinity until the end; `byOutcome`: items carry their outcome (1.3).
 */
interface CallSteps<Request, Prepared> {
	check(context: IExecuteFunctions, itemIndex: number): Request;
	prepare(context: IExecuteFunctions, itemIndex: number, request: Request): Promise<Prepared>;
	run(context: IExecuteFunctions, prepared: Prepared, seams: BatchSeams): Promise<IDataObject>;
	liveCallOf(context: IExecuteFunctions, itemIndex: number, request: Request): string | undefined;
	slotHoldMs(request: Request): number | undefined;
	byOutcome: boolean;
	failureFields(error: unknown, request: Request | undefined, itemIndex: number): IDataObject;
}

/** For the calls still waiting for their pace slot when the batch stops: they were never sent. */
function notPlacedError(context: IExecuteFunctions) {
	return cancellationError(context.getNode(), {
		message: 'Not placed: the run stopped at an earlier item that failed',
	});
}

/**
 * Runs Create for every item, up to Calls at Once at the same time, new calls paced, all waits on one
 * schedule; every item is checked and prepared before the first call. Outputs in input order; a failed item
 * is an error item with "On Error → Continue", otherwise no new call starts and the error stops the node.
 */
export async function runCallBatch<Request, Prepared>(
	context: IExecuteFunctions,
	steps: CallSteps<Request, Prepared>,
	ledger: CallLedger,
): Promise<INodeExecutionData[]> {
	const items = context.getInputData();
	const settings = batchSettings(context);
	const outputs: INodeExecutionData[][] = new Array(items.length);
	const requests = new Map<number, Request>();
	const progress = new Progress(steps.byOutcome);
	const fail = (itemIndex: number, error: unknown) => {
		progress.fail();
		const output = failedItemOutput(context, itemIndex, error);
		const fields = steps.byOutcome
			? steps.failureFields(error, requests.get(itemIndex), itemIndex)
			: {};
		outputs[itemIndex] = output.map((item) => ({ ...item, json: { ...item.json, ...fields } }));
	};
	const turn = eventLoopTurns();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		await turn();
		try {
			requests.set(itemIndex, steps.check(context, itemIndex));
		} catch (error) {
			fail(itemIndex, error);
		}
	}
	const prepared = new Map<number, Prepared>();
	for (const [itemIndex, request] of requests) {
		await turn();
		try {
			prepared.set(itemIndex, await steps.prepare(context, itemIndex, request));
		} catch (error) {
			fail(itemIndex, error);
		}
	}
	// Items whose call an earlier try left in progress go first: their slots are taken already.
	const liveCallOf = (itemIndex: number) =>
		steps.liveCallOf(context, itemIndex, requests.get(itemIndex) as Request);
	const live: number[] = [];
	const others: number[] = [];
	for (const itemIndex of prepared.keys())
		(liveCallOf(itemIndex) === undefined ? others : live).push(itemIndex);
	const ready = [...live, ...others];

	// From version 1.4 the node's slots and pace are shared by its executions running now (nodeSlots.ts).
	const nodeSlots = nodeSlotsOf(context);
	const pace = new CallPace(context, settings.maxCallsPerMinute, ledger, Date.now, nodeSlots?.pace);
	const schedule = new WaitSchedule(context);
	const seams: BatchSeams = { pace, schedule };
	const signal = cancelSignalOf(context);
	let fatal: unknown;
	let next = 0;
	const stopped = () => fatal !== undefined || signal?.aborted === true;
	// A slot is held until its call is seen to end or its Slot Hold is over; before 1.4 also until no item
	// is left to start (from 1.4 the slot is the node's: other executions may be waiting for it).
	const holdSlot = async (itemIndex: number) => {
		const callId = liveCallOf(itemIndex);
		const holdMs = steps.slotHoldMs(requests.get(itemIndex) as Request);
		if (callId === undefined || holdMs === undefined) return;
		const runIsOver = () => nodeSlots === undefined && next >= ready.length;
		const { latest } = await schedule.waitFor({ id: callId } as Call, {
			maxWaitMs: holdMs,
			firstIntervalMs: HELD_CHECK_MS,
			giveUp: runIsOver,
		});
		if (hasEnded(latest)) callSeenEnded(ledger, await accountOf(context), latest);
		else if (!runIsOver() && !stopped()) outputs[itemIndex] = releasedOutput(outputs[itemIndex]);
	};
	const worker = async () => {
		while (!stopped() && next < ready.length) {
			// The item first, then (from 1.4) its slot, once its number is held: a worker without an item
			// never holds a slot, and an item skipped for another's call never takes one.
			const itemIndex = ready[next++];
			let slotTaken = false;
			const takeSlot = async () => {
				if (!(await (nodeSlots as NodeSlots).take(settings.callsAtOnce, stopped)))
					throw signal?.aborted ? cancelledError(context) : notPlacedError(context);
				slotTaken = true;
			};
			try {
				const itemSeams = nodeSlots ? { ...seams, takeSlot } : seams;
				const json = await steps.run(context, prepared.get(itemIndex) as Prepared, itemSeams);
				progress.count(json);
				outputs[itemIndex] = [{ json, pairedItem: { item: itemIndex } }];
			} catch (error) {
				try {
					fail(itemIndex, error);
				} catch (itemError) {
					fatal ??= itemError;
					// Calls waiting for the pace were never sent: not the failed item's "may have been placed".
					pace.stop(notPlacedError(context));
					schedule.stop(fatal);
					nodeSlots?.wake();
				}
			}
			if (!stopped() && (slotTaken || !nodeSlots)) await holdSlot(itemIndex).catch(() => undefined);
			if (slotTaken) nodeSlots?.free();
		}
	};
	const workers = Math.min(settings.callsAtOnce, ready.length);
	try {
		await Promise.all(Array.from({ length: workers }, worker));
	} finally {
		nodeSlots?.leave();
	}

	context.addExecutionHints({ message: progress.message, type: 'info', location: 'outputPane' });
	if (fatal !== undefined) throw fatal;
	if (signal?.aborted) throw cancelledError(context);
	return outputs.flat();
}
