import type { IExecuteFunctions, INode } from 'n8n-workflow';

import type { CallFilter, NewCall } from '../../../../../shared/api/calls';
import { LONGEST_CALL_MS } from '../../../../../shared/callStatus';
import { configurationError, noAnswerError } from '../../../../../shared/errors';
import type { Call } from '../../../../../shared/types';
import type { InputValidator } from '../../../../../shared/validation';
import type { CallLedger, CallRecord, Caller, SkippedCall } from '../model';
import { runsAsTool } from '../../allowedDestinations';
import { claimSlot, ledgerOf, recordCaller, runIndexOf, slotOf } from '../records/callLedger';
import { MAX_ENTRIES, type GateEntry, type GatePass } from '../gate/numberGate';
import type { ItemHours } from '../callingHours/window';
import type { HourBudget, HourCall, HourRead } from '../guards/callsPerHour';

/** One item's call, its input checked and its agent resolved. */
export interface ItemCall {
	body: NewCall;
	/** Another agent (or number to call from) is another call. */
	caller: Caller;
	filter: CallFilter;
	itemIndex: number;
	/** Max Calls per Run and Skip If Called Within (Minutes); 0: off. */
	maxCalls: number;
	windowMinutes: number;
	/** Call Again's attempt, 1 without it: another attempt is another call. */
	attempt: number;
	previousCallId?: string;
	hours?: ItemHours;
	/** Account, caller and number. */
	gateKey: string;
	/** The account's fingerprint (Base URL and key): another account's call IDs are other calls. */
	account: string;
	hourBudget?: HourBudget;
}

/** The async reads of the service the decision asks for (attempts/placeAndWait.ts runs them). */
export type LookUp = 'recent' | 'hour' | 'heldCall' | 'newest' | 'listed';

/** What the decision knows of one item; a look-up's answer: undefined not asked, null nothing found. */
export interface Facts {
	node: INode;
	validate: InputValidator;
	item: ItemCall;
	ledger: CallLedger;
	slot: string;
	/** Undefined as an AI tool. */
	run?: number;
	executionId: string;
	asTool: boolean;
	pass?: GatePass;
	record?: CallRecord;
	hourCall?: HourCall;
	recent?: SkippedCall | null;
	hour?: HourRead;
	/** Another's entry for the number. */
	met?: GateEntry;
	waited?: boolean;
	heldCall?: Call;
	newest?: { call?: Call; serviceDate?: string };
	listed?: SkippedCall | null;
}

export function factsOf(
	context: IExecuteFunctions,
	validate: InputValidator,
	item: ItemCall,
): Facts {
	const asTool = runsAsTool(context);
	return {
		...{ node: context.getNode(), validate, item, ledger: ledgerOf(context, item.itemIndex) },
		slot: slotOf(context, item.itemIndex, item.body.to),
		run: asTool ? undefined : runIndexOf(context),
		executionId: context.getExecutionId(),
		asTool,
	};
}

/** Output this call: as skipped with `skipReason` (the number was called already), or as the item's own. */
export interface Found {
	kind: 'found';
	callId: string;
	/** Read already; otherwise read by ID. */
	call?: Call;
	skipReason?: string;
	/** This very attempt's call: its end is the attempt's outcome. */
	own?: boolean;
}

/** Who placed the number first, as the outcome of the item that met it says. */
interface PlacedFirst {
	placedBy: string;
	skipReason(callId: string): string;
}

export const EARLIER_ITEM = 'an earlier item of this run';

export const earlierItem = (to: string, itemIndex: number): PlacedFirst => ({
	placedBy: EARLIER_ITEM,
	skipReason: (callId) =>
		`Item ${itemIndex} of this run called ${to} already (call ${callId}), so it was not called again`,
});

export function placedFirstBy(facts: Facts, holder: GateEntry['holder']): PlacedFirst {
	const { ledger, run, item } = facts;
	const here = holder.ledger === ledger;
	if (here && run !== undefined && holder.run === run)
		return earlierItem(item.body.to, holder.itemIndex);
	const other =
		holder.executionId === facts.executionId || holder.executionId === ''
			? 'another execution'
			: `execution ${holder.executionId}`;
	const earlierRun = here && run !== undefined && holder.run !== undefined;
	const placedBy = earlierRun
		? 'an earlier run of this node in this execution'
		: `${here ? 'another use of this node in this execution' : other}, running at the same time`;
	// "…, running at the same time, placed the call": the clause closes with a comma.
	const By = placedBy.charAt(0).toUpperCase() + placedBy.slice(1) + (earlierRun ? '' : ',');
	const skipReason = (callId: string) =>
		`${By} placed the call to ${item.body.to} (call ${callId}), so it was not called again`;
	return { placedBy, skipReason };
}

/**
 * The item takes the outcome of the record that placed its number first, remembered as its own so that a
 * *Retry execution* never dials it; undefined when that one placed nothing (decide again).
 */
export function take(
	facts: Facts,
	first: { record: CallRecord; by: PlacedFirst; call?: Call; heldUntil?: number },
): Found | undefined {
	const { record, by } = first;
	const { item } = facts;
	if (record.state === 'notSent') return undefined;
	const base = {
		...recordCaller(item.caller),
		to: item.body.to,
		executionId: facts.executionId,
		...(item.attempt > 1 ? { attempt: item.attempt } : {}),
	};
	if (record.callId === undefined) {
		// The same possible call as the first one's: counted once against Max Calls per Run.
		claimSlot(facts.ledger, facts.slot, { ...base, state: 'unknown', sameCallAs: 'another call' });
		throw mayHaveBeenPlacedError(facts.node, item, record, by.placedBy, first.heldUntil);
	}
	const skipReason =
		record.state === 'skipped' ? (record.why as string) : by.skipReason(record.callId);
	const own = record.own === true;
	claimSlot(facts.ledger, facts.slot, {
		...base,
		...{ state: 'skipped', callId: record.callId, why: skipReason },
		...(own ? { own } : {}),
	});
	return { kind: 'found', callId: record.callId, call: first.call, skipReason, own };
}

/** The call an earlier run of the node placed for this item: output again, never dialled again. */
export function placedBefore(facts: Facts, record: CallRecord): Found {
	const callId = record.callId as string;
	if (record.state === 'skipped')
		return { kind: 'found', callId, skipReason: record.why as string, own: record.own === true };
	if (record.executionId !== facts.executionId) {
		const skipReason = `Execution ${record.executionId}, which this execution retries, placed this call already, so it was not placed again`;
		return { kind: 'found', callId, skipReason, own: true };
	}
	// An AI model that asks again learns that the number was called; a workflow's retry gets its call.
	if (!facts.asTool) return { kind: 'found', callId };
	const skipReason = `This tool already called ${facts.item.body.to} in this execution (call ${callId}), so it was not called again`;
	return { kind: 'found', callId, skipReason };
}

/** An earlier call to the number may have been placed; `heldUntil`: the gate holds the number until then. */
export function mayHaveBeenPlacedError(
	node: INode,
	{ body, itemIndex }: ItemCall,
	record: CallRecord,
	placedBy: string,
	heldUntil?: number,
) {
	const unnamed = record.state === 'unnamed';
	const held =
		heldUntil === undefined
			? ''
			: ` This n8n process does not dial ${body.to} from this agent again until that call is found in the call list, or until ${new Date(heldUntil).toISOString()} (the longest a call may last).`;
	const text = {
		message: unnamed
			? `The call to ${body.to} was placed by ${placedBy}, but the service's answer did not name it: not placed again, check the call list [item ${itemIndex}]`
			: `The call to ${body.to} may have been placed by ${placedBy}: not placed again, check the call list [item ${itemIndex}]`,
		description: `${unnamed ? 'The call could not be found in the call list afterwards.' : 'That attempt got no answer from the service, so the node cannot tell whether the call was placed.'} It does not dial again, so that nobody is phoned twice.${held}`,
		itemIndex,
	};
	return noAnswerError(node, text, { outcomeUnknown: true });
}

/** The gate is full: a new number is refused rather than one that may be in progress forgotten. */
export function gateFullError(node: INode, { body, itemIndex }: ItemCall) {
	return configurationError(node, {
		message: `The call to ${body.to} was not placed: this n8n process already holds ${MAX_ENTRIES.toLocaleString('en-US')} numbers whose calls may be in progress, the most it keeps [item ${itemIndex}]`,
		description: `The node never forgets a number whose call may still be in progress, so it dials no new number until one of those calls is seen to end or is ${LONGEST_CALL_MS / 3_600_000} hours old. Turn on Wait for the Call to End (the node then sees calls end), or spread the list over more time or more n8n processes.`,
		itemIndex,
	});
}
