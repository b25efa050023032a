import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { configurationError } from '../../../../../shared/errors';
import { oncePerRun } from '../../../../../shared/runCache';
import type { InputValidator } from '../../../../../shared/validation';
import { runsAsTool } from '../../allowedDestinations';
import type { CallLedger, CallRecord, Caller, CallState } from '../model';

/** A record only moves forward; unnamed: the answer named no call; unknown: no answer, maybe placed. */
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

/** Only `notSent` and `skipped` placed nothing: every other state counts against Max Calls per Run. */
const placedNothing = (state: CallState) => state === 'notSent' || state === 'skipped';

const LEDGER_KEY = 'voiceAgentCalls';
const LEGACY_PLACED_KEY = 'voiceAgentPlacedCalls';
const LEGACY_COUNT_KEY = 'voiceAgentCallsReserved';

function executionContextOf(context: IExecuteFunctions): IDataObject | undefined {
	return typeof context.getContext === 'function' ? context.getContext('node') : undefined;
}

/** Taken over from an earlier version, so that a *Retry execution* after an upgrade holds. */
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

/** Without an execution context, one per node run, and Retry On Fail refused: a retry could not tell. */
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

/** Read once per run: a data proxy is not cheap. */
export function runIndexOf(context: IExecuteFunctions): number {
	return oncePerRun(context, 'runIndex', () => context.getWorkflowDataProxy(0).$runIndex as number);
}

/**
 * The item's place in the execution: a loop pass gets a new run index. So does every use and retry of an AI
 * tool, so there the number is the place: a tool dials a number once per execution, whatever agent.
 */
export function slotOf(context: IExecuteFunctions, itemIndex: number, to: string): string {
	if (runsAsTool(context)) return `tool:${to}`;
	return `${runIndexOf(context)}:${itemIndex}`;
}

/**
 * The count Max Calls per Run reads and the records naming each call, so each answer costs the same for any
 * list. In memory: built on the first read (also of a ledger n8n read back), kept by `claimSlot` and `advance`.
 */
interface LedgerIndex {
	counted: number;
	byCallId: Map<string, Set<CallRecord>>;
}

const indexes = new WeakMap<CallLedger, LedgerIndex>();
/** `advance` moves a record without its ledger. */
const indexOfRecord = new WeakMap<CallRecord, LedgerIndex>();

const counts = (record: CallRecord) =>
	!placedNothing(record.state) && record.sameCallAs === undefined;

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

export function mayHaveCalled(record: CallRecord | undefined): boolean {
	return record !== undefined && !placedNothing(record.state);
}

/** The calls this node may have placed in the execution, each possible call once. */
export function callsCounted(ledger: CallLedger): number {
	return indexOf(ledger).counted;
}

/** An AI Agent's tool places one call per execution unless the workflow allows more. */
const TOOL_DEFAULT_MAX_CALLS = 1;
const MAX_CALLS = 'Max Calls per Run';

export const maxCallsPerRunOption: INodeProperties = {
	displayName: MAX_CALLS,
	name: 'maxCallsPerRun',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: TOOL_DEFAULT_MAX_CALLS,
	description: `At most this many calls in one run of the workflow, however often the node runs in it (an AI Agent may use it several times). A call over the limit fails before anything is dialled. 0: no limit. Without this option: ${TOOL_DEFAULT_MAX_CALLS} as an AI tool, no limit otherwise.`,
};

export function maxCallsPerRun(
	context: IExecuteFunctions,
	validate: InputValidator,
	options: IDataObject,
): number {
	if (options.maxCallsPerRun === undefined) return runsAsTool(context) ? TOOL_DEFAULT_MAX_CALLS : 0;
	return validate.integer(options.maxCallsPerRun, MAX_CALLS, 0);
}

/** Read in the same synchronous step as the record that follows: two uses never both take the last call. */
export function checkCallLimit(
	ledger: CallLedger,
	validate: InputValidator,
	max: number,
	to: string,
) {
	const taken = callsCounted(ledger);
	if (max > 0 && taken >= max) {
		validate.fail(
			MAX_CALLS,
			`(${max}) is reached: this node already placed ${taken} call${taken === 1 ? '' : 's'} in this execution, so the call to ${to} was not placed`,
			`Raise ${MAX_CALLS} (Call → Create → Options) to place more calls in one execution.`,
		);
	}
}

/** A record already in the slot that may have phoned someone is kept under a key of its own: it still counts. */
export function claimSlot(ledger: CallLedger, slot: string, record: CallRecord): void {
	const index = indexOf(ledger);
	const earlier = ledger.records[slot];
	if (earlier && !placedNothing(earlier.state)) {
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

export function recordCaller(caller: Caller): Pick<CallRecord, 'agent' | 'from'> {
	return { agent: caller.agentId ?? '', from: caller.from };
}

/**
 * The picker's mode never decides it: an agent by list, ID, name or phone number is one caller. Records saved
 * before `from` name the picker; by name only the same name is known to be the same agent.
 */
export function sameCaller(record: CallRecord, caller: Caller): boolean {
	if (record.from !== undefined)
		return record.from === caller.from || (record.agent !== '' && record.agent === caller.agentId);
	if (record.agent === '' || record.agent === caller.picker) return true;
	const colon = record.agent.indexOf(':');
	const mode = record.agent.slice(0, colon);
	const value = record.agent.slice(colon + 1);
	if (mode === 'phoneNumber') return value === caller.from;
	return (mode === 'list' || mode === 'id') && value === caller.agentId;
}
