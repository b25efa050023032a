import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { configurationError } from '../../../../../shared/errors';
import { oncePerRun } from '../../../../../shared/runCache';
import { runsAsTool } from '../../allowedDestinations';

/**
 * Where a call this node set out to place stands. It only moves forward: claimed → sent → placed /
 * unnamed (placed, the answer named no call) / unknown (no answer: maybe placed) / notSent; unnamed and
 * unknown → placed when the call list shows it; placed → ended. claimed → skipped (the number was called
 * already) or notSent (failed before sending). Only `notSent` and `skipped` placed nothing.
 */
type CallState =
	| 'claimed'
	| 'sent'
	| 'placed'
	| 'unnamed'
	| 'unknown'
	| 'notSent'
	| 'skipped'
	| 'ended';

const NEXT: Record<CallState, readonly CallState[]> = {
	claimed: ['sent', 'notSent', 'skipped'],
	sent: ['placed', 'unnamed', 'unknown', 'notSent'],
	unnamed: ['placed'],
	unknown: ['placed'],
	placed: ['ended'],
	notSent: [],
	skipped: [],
	ended: [],
};

/** The states in which this node may have phoned someone: they count against Max Calls per Run. */
const MAY_HAVE_CALLED: ReadonlySet<CallState> = new Set([
	'claimed',
	'sent',
	'placed',
	'unnamed',
	'unknown',
	'ended',
]);

/**
 * One intended call, in the execution's memory. About 100 bytes in the saved execution.
 */
export interface CallRecord extends IDataObject {
	/**
	 * The agent that places it, by ID whichever way From named it ('' when From gave a phone number). In
	 * records saved without `from`: the picker's `mode:value`, or '' (version 0.1.0: any agent).
	 */
	agent: string;
	/** The number the call is placed from, whichever way From named it. */
	from?: string;
	to: string;
	state: CallState;
	callId?: string;
	/** The execution that claimed it: another one is a *Retry execution* of it. */
	executionId: string;
	/** The node run (loop pass) whose batch placed it; tools: none. */
	run?: number;
	/** Why it was skipped: the call it found instead is output with this. */
	why?: string;
	/** The call found is this very attempt's own, placed by an execution whose outcome never reached the lead. */
	own?: boolean;
	/** The lead's attempt (Call Again) from 2 on: each attempt is a call of its own. */
	attempt?: number;
	/**
	 * The slot of the record whose possible call this one is too (a later item with the same number,
	 * after the first one's outcome was unknown): one possible call counts once, on that record.
	 */
	sameCallAs?: string;
}

/**
 * The execution's memory of Call → Create, kept in n8n's execution context for the node
 * (`getContext('node')`): n8n keeps it across the tries of *Retry On Fail* and the passes of a loop,
 * and saves it with the execution, so *Retry execution* finds it too. Every guard reads it: re-runs
 * (the item's record), Max Calls per Run (records that may have called), the per-number guard (records
 * in flight), Calls at Once (records placed and not seen ended) and the pace (`sentAt`).
 */
export interface CallLedger extends IDataObject {
	records: Record<string, CallRecord>;
	/** n8n's clock (ms) at each POST /call of the last minute: Max New Calls per Minute. */
	sentAt: number[];
}

const LEDGER_KEY = 'voiceAgentCalls';
/** What versions before the ledger kept: placed calls by slot, and the count of Max Calls. */
const LEGACY_PLACED_KEY = 'voiceAgentPlacedCalls';
const LEGACY_COUNT_KEY = 'voiceAgentCallsReserved';

/** The node's execution context, which outlives a run of the node; undefined where n8n gives none. */
function executionContextOf(context: IExecuteFunctions): IDataObject | undefined {
	return typeof context.getContext === 'function' ? context.getContext('node') : undefined;
}

/** Calls an earlier version remembered, taken over so that a *Retry execution* after an upgrade holds. */
function fromLegacy(nodeContext: IDataObject): Record<string, CallRecord> {
	const legacy = (nodeContext[LEGACY_PLACED_KEY] ?? {}) as Record<string, IDataObject>;
	const records: Record<string, CallRecord> = {};
	for (const [slot, placed] of Object.entries(legacy)) {
		const callId = typeof placed.callId === 'string' ? placed.callId : undefined;
		records[slot] = {
			agent: '',
			to: String(placed.to ?? ''),
			state: callId ? 'placed' : 'unknown',
			...(callId ? { callId } : {}),
			executionId: String(placed.executionId ?? ''),
		};
	}
	delete nodeContext[LEGACY_PLACED_KEY];
	delete nodeContext[LEGACY_COUNT_KEY];
	return records;
}

/**
 * The execution's ledger. Where n8n gives no execution context, one for this node run only, and then
 * Retry On Fail is refused: a retry could not tell what the first try placed.
 */
export function ledgerOf(context: IExecuteFunctions, itemIndex = 0): CallLedger {
	const nodeContext = executionContextOf(context);
	if (!nodeContext) {
		if (context.getNode().retryOnFail === true) {
			throw configurationError(context.getNode(), {
				message: `Retry On Fail cannot be used with Call → Create in this n8n: a retry would phone every number again [item ${itemIndex}]`,
				description: 'Turn off Retry On Fail in the node settings.',
				itemIndex,
			});
		}
		return oncePerRun(context, 'callLedger', () => ({ records: {}, sentAt: [] }));
	}
	if (!nodeContext[LEDGER_KEY]) {
		nodeContext[LEDGER_KEY] = { records: fromLegacy(nodeContext), sentAt: [] } as CallLedger;
	}
	return nodeContext[LEDGER_KEY] as CallLedger;
}

/** The node run's index, the same for all its items: read once per run (a data proxy is not cheap). */
export function runIndexOf(context: IExecuteFunctions): number {
	return oncePerRun(context, 'runIndex', () => context.getWorkflowDataProxy(0).$runIndex as number);
}

/**
 * The item's place in the execution. A loop pass gets a new run index, so its items never meet another
 * pass's calls. An AI tool gets a new run index for every use and every retry, so there the number is
 * the place: a tool dials a number once per execution, whichever agent the model names.
 */
export function slotOf(context: IExecuteFunctions, itemIndex: number, to: string): string {
	if (runsAsTool(context)) return `tool:${to}`;
	return `${runIndexOf(context)}:${itemIndex}`;
}

/**
 * What the guards read from the records, kept beside them so that each answer costs the same whatever
 * the size of the list: how many records may have phoned someone (Max Calls per Run), and the records
 * naming each call (a call seen to end). In memory only, beside the ledger object: built by one pass
 * over the records the first time a guard reads a ledger (so also when n8n read back a ledger it saved
 * with the execution, for *Retry execution*), then kept true by every change, which goes through
 * `claimSlot` and `advance` only.
 */
interface LedgerIndex {
	counted: number;
	byCallId: Map<string, Set<CallRecord>>;
}

const indexes = new WeakMap<CallLedger, LedgerIndex>();
/** Each indexed record's index: `advance` moves a record without its ledger. */
const indexOfRecord = new WeakMap<CallRecord, LedgerIndex>();

/** Whether the record counts against Max Calls per Run: it may have called, and counts for itself. */
const counts = (record: CallRecord) =>
	MAY_HAVE_CALLED.has(record.state) && record.sameCallAs === undefined;

function addToIndex(index: LedgerIndex, record: CallRecord): void {
	indexOfRecord.set(record, index);
	if (counts(record)) index.counted++;
	if (record.callId !== undefined) nameCall(index, record, record.callId);
}

function removeFromIndex(index: LedgerIndex, record: CallRecord): void {
	indexOfRecord.delete(record);
	if (counts(record)) index.counted--;
	if (record.callId !== undefined) index.byCallId.get(record.callId)?.delete(record);
}

function nameCall(index: LedgerIndex, record: CallRecord, callId: string): void {
	let named = index.byCallId.get(callId);
	if (!named) index.byCallId.set(callId, (named = new Set()));
	named.add(record);
}

function indexOf(ledger: CallLedger): LedgerIndex {
	let index = indexes.get(ledger);
	if (!index) {
		index = { counted: 0, byCallId: new Map() };
		for (const record of Object.values(ledger.records)) addToIndex(index, record);
		indexes.set(ledger, index);
	}
	return index;
}

/** Moves a record forward; a step back is a bug in the node, never something the service did. */
export function advance(record: CallRecord, state: CallState, callId?: string): void {
	if (record.state === state && callId === undefined) return;
	if (record.state !== state && !NEXT[record.state].includes(state)) {
		throw new Error(`A call's record cannot go from ${record.state} to ${state}`);
	}
	const index = indexOfRecord.get(record);
	if (index) removeFromIndex(index, record);
	record.state = state;
	if (callId !== undefined) record.callId = callId;
	if (index) addToIndex(index, record);
}

/** Whether the record's call may have phoned someone (only `notSent` and `skipped` placed nothing). */
export function mayHaveCalled(record: CallRecord | undefined): boolean {
	return record !== undefined && MAY_HAVE_CALLED.has(record.state);
}

/**
 * How many calls this node may have placed in the execution: Max Calls per Run counts these, each
 * possible call once (a record that shares another's possible call is not counted again).
 */
export function callsCounted(ledger: CallLedger): number {
	return indexOf(ledger).counted;
}

/**
 * Puts a new record in the slot. A record already there for another call (the slot's item now names
 * another number or agent, e.g. *Retry with currently saved workflow*) is kept under a key of its own:
 * it may have phoned someone, so Max Calls per Run must go on counting it.
 */
export function claimSlot(ledger: CallLedger, slot: string, record: CallRecord): void {
	const index = indexOf(ledger);
	const earlier = ledger.records[slot];
	if (earlier && MAY_HAVE_CALLED.has(earlier.state)) {
		let displaced = 1;
		while (ledger.records[`${slot}~${displaced}`]) displaced++;
		ledger.records[`${slot}~${displaced}`] = earlier;
	} else if (earlier) {
		removeFromIndex(index, earlier);
	}
	ledger.records[slot] = record;
	addToIndex(index, record);
}

/** Notes in the execution's records that a call was seen to end (the gate is told by `callSeenEnded`). */
export function markEnded(ledger: CallLedger, callId: string): void {
	for (const record of [...(indexOf(ledger).byCallId.get(callId) ?? [])]) {
		if (record.state === 'placed') advance(record, 'ended');
	}
}
