import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { configurationError } from '../../../../../shared/errors';
import { oncePerRun } from '../../../../../shared/runCache';
import type { InputValidator } from '../../../../../shared/validation';
import { runsAsTool } from '../../allowedDestinations';
import type { CallLedger, CallRecord, Caller, CallState } from '../model';

/**
 * A record only moves forward: claimed → sent → placed / unnamed (the answer named no call) / unknown (no
 * answer: maybe placed) / notSent; unnamed and unknown → placed once listed; claimed → skipped or notSent.
 */
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

/** Whether the record's call may have phoned someone. */
export function mayHaveCalled(record: CallRecord | undefined): boolean {
	return record !== undefined && !placedNothing(record.state);
}

/**
 * How many calls this node may have placed in the execution: Max Calls per Run counts these, each
 * possible call once (a record that shares another's possible call is not counted again).
 */
export function callsCounted(ledger: CallLedger): number {
	return indexOf(ledger).counted;
}

/** An AI Agent's tool places one call per execution unless the workflow allows more. */
const TOOL_DEFAULT_MAX_CALLS = 1;
const MAX_CALLS = 'Max Calls per Run';

/** Call → Create's cap on the calls one execution places, e.g. an AI model calling the tool in a loop. */
export const maxCallsPerRunOption: INodeProperties = {
	displayName: MAX_CALLS,
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
	return validate.integer(options.maxCallsPerRun, MAX_CALLS, 0);
}

/**
 * Fails when the execution's calls have reached the limit. Read in the same synchronous step as the
 * record that follows it, so uses of the node running at the same time never both take the last call.
 */
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

/**
 * Puts a new record in the slot. A record already there for another call (the slot's item now names
 * another number or agent, e.g. *Retry with currently saved workflow*) is kept under a key of its own:
 * it may have phoned someone, so Max Calls per Run must go on counting it.
 */
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

/** The caller as a record keeps it: the agent's ID ('' for a phone number) and the number it calls from. */
export function recordCaller(caller: Caller): Pick<CallRecord, 'agent' | 'from'> {
	return { agent: caller.agentId ?? '', from: caller.from };
}

/**
 * Whether the record's call was placed by the item's caller. The picker's mode never decides it: an agent
 * picked from the list, given by ID, by name or by its phone number is the same caller. Records saved
 * before `from` was kept name the picker: by ID or from the list they name the agent, by phone number
 * the number; by name only the same name is known to be the same agent.
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
