import { LONGEST_CALL_MS, surelyEnded } from '../../../../../shared/callStatus';
import { oncePerRun } from '../../../../../shared/runCache';
import type { CallLedger, CallRecord } from '../model';
import {
	advance,
	checkCallLimit,
	claimSlot,
	recordCaller,
	sameCaller,
} from '../records/callLedger';
import { callEnded, enterGate, GATE_FULL, isPass, letGo, type GateEntry } from '../gate/numberGate';
import { CallDeferred, deferralOf } from '../callingHours/window';
import { takeHourCall } from '../guards/callsPerHour';
import {
	calledSinceReason,
	recentCallReason,
	recordFound,
	sameContext,
} from '../guards/skipRecentlyCalled';
import {
	EARLIER_ITEM,
	earlierItem,
	gateFullError,
	mayHaveBeenPlacedError,
	placedBefore,
	placedFirstBy,
	take,
	type Facts,
	type Found,
	type LookUp,
} from './taken';

/*
 * The one decision of Call → Create: may this item dial now? Synchronous, so that every check and the gate's
 * entry are one step no other execution can come between. attempts/placeAndWait.ts runs the look-ups it asks
 * for and asks again; `wait`: another holds the number while it decides or places.
 */
type Decision =
	| { kind: 'place' }
	| Found
	| { kind: 'lookUp'; what: LookUp }
	| { kind: 'wait'; entry: GateEntry }
	| { kind: 'refuse'; error: unknown }
	| { kind: 'defer'; deferred: CallDeferred };

/** Records whose number this process holds in its gate right now (deciding or placing). */
const heldNow = new WeakSet<CallRecord>();

/** The run's records by number and caller, in memory beside the ledger. */
function runRecords(ledger: CallLedger): Map<string, { record: CallRecord; itemIndex: number }> {
	return oncePerRun(ledger, 'runRecords', () => new Map());
}

/** Decides from the facts known so far; a refusal or a deferral is an answer, not a throw. */
export function decide(facts: Facts, now: number): Decision {
	try {
		for (;;) {
			if (facts.pass) return holding(facts);
			const decision = facts.met ? meet(facts, facts.met, now) : enter(facts, now);
			if (decision) return decision;
		}
	} catch (error) {
		if (error instanceof CallDeferred) return { kind: 'defer', deferred: error };
		return { kind: 'refuse', error };
	}
}

/** Once the call is answered, found or refused, the gate learns what it keeps: a call, an unknown, or nothing. */
export function settle(facts: Facts): void {
	const { pass, record } = facts;
	if (!pass || !record) return;
	facts.pass = undefined;
	heldNow.delete(record);
	if (record.state === 'claimed') advance(record, 'notSent');
	facts.hourCall?.land(record);
	if (record.callId !== undefined && record.state !== 'skipped') pass.placed(record.callId);
	else if (['sent', 'unnamed', 'unknown'].includes(record.state)) pass.unknown();
	pass.leave();
}

/** The item's own record (a re-run), the run's earlier item, then the gate: a pass, or the holder's entry. */
function enter(facts: Facts, now: number): Decision | undefined {
	const { item, ledger, node, run } = facts;
	const to = item.body.to;
	const earlier = ledger.records[facts.slot];
	const sameCall =
		earlier?.to === to &&
		(earlier.attempt ?? 1) === item.attempt &&
		(facts.asTool || sameCaller(earlier, item.caller));
	if (earlier && sameCall) {
		if (earlier.callId !== undefined) return placedBefore(facts, earlier);
		// Claimed or sent right now by a concurrent use meets it in the gate; a try that stopped before
		// sending placed nothing; neither did a refusal.
		if (!['claimed', 'notSent', 'skipped'].includes(earlier.state) && !heldNow.has(earlier))
			throw mayHaveBeenPlacedError(node, item, earlier, 'an earlier run of this node');
	}
	// One call per number and node run, whatever the skip window: a later item takes the first's outcome.
	const numberKey = run === undefined ? undefined : `${run}|${item.gateKey}`;
	const first = numberKey === undefined ? undefined : runRecords(ledger).get(numberKey);
	if (first && !['claimed', 'sent', 'notSent'].includes(first.record.state))
		return take(facts, { record: first.record, by: earlierItem(to, first.itemIndex) });
	const record: CallRecord = {
		...recordCaller(item.caller),
		...{ to, state: 'claimed', executionId: facts.executionId },
		...(run === undefined ? {} : { run }),
		...(item.attempt > 1 ? { attempt: item.attempt } : {}),
	};
	const holder = { executionId: facts.executionId, ledger, run, itemIndex: item.itemIndex, record };
	const entered = enterGate(item.gateKey, holder, now);
	if (entered === GATE_FULL) throw gateFullError(node, item);
	if (!isPass(entered)) {
		facts.met = entered;
		return undefined;
	}
	Object.assign(facts, { pass: entered, record });
	heldNow.add(record);
	const deferred = deferralOf(node, item.hours, to, now);
	if (deferred) throw deferred;
	checkCallLimit(ledger, facts.validate, item.maxCalls, to);
	claimSlot(ledger, facts.slot, record);
	if (numberKey !== undefined)
		runRecords(ledger).set(numberKey, { record, itemIndex: item.itemIndex });
	return undefined;
}

/** The number is this item's: its recent call is looked for, then the hour's budget charged in one step. */
function holding(facts: Facts): Decision {
	const { item, record, recent } = facts;
	if (recent === undefined) return { kind: 'lookUp', what: 'recent' };
	if (recent) {
		recordFound(record as CallRecord, recent);
		settle(facts);
		const { id: callId, skipReason, ownAttempt } = recent;
		return { kind: 'found', callId, call: recent, skipReason, own: ownAttempt === true };
	}
	if (item.hourBudget && !facts.hourCall) {
		if (!facts.hour) return { kind: 'lookUp', what: 'hour' };
		facts.hourCall = takeHourCall(item.hourBudget, facts.hour, facts.validate, item.body.to);
	}
	return { kind: 'place' };
}

/** Forgets the entry met and what was read of it. */
function again(facts: Facts): undefined {
	Object.assign(facts, { met: undefined, waited: undefined, heldCall: undefined });
	Object.assign(facts, { newest: undefined, listed: undefined });
	return undefined;
}

/**
 * Another holds the number. A placed call is read by ID: in progress, begun within the skip window, or placed
 * by an earlier item of the run, it is output as skipped; otherwise the number is let go.
 */
function meet(facts: Facts, met: GateEntry, now: number): Decision | undefined {
	const { item, ledger } = facts;
	const { holder } = met;
	const by = placedFirstBy(facts, holder);
	if (facts.waited) {
		// This very slot's record (a concurrent use of the tool): the ledger says what it placed. A call
		// placed by ID is met again, as placed; an unnamed one is the holder's outcome (may have been placed).
		if (ledger.records[facts.slot] === holder.record || met.callId !== undefined)
			return again(facts);
		return take(facts, { record: holder.record, by }) ?? again(facts);
	}
	if (met.state !== 'placed') return { kind: 'wait', entry: met };
	const as = (more: Partial<CallRecord>) => ({ ...holder.record, ...more }) as CallRecord;
	// A call nobody could name: the agent's newest call to the number, not surely ended, is taken as it. Not
	// found, it may still ring (a list may lag or omit the number): held until the longest call is over.
	if (met.callId === undefined) {
		if (!facts.newest) return { kind: 'lookUp', what: 'newest' };
		const { call: newest, serviceDate } = facts.newest;
		if (newest !== undefined && !surelyEnded(newest))
			return take(facts, { record: as({ callId: newest.id, state: 'placed' }), by });
		const why =
			newest && item.previousCallId === undefined
				? recentCallReason(newest, serviceDate, item.windowMinutes)
				: undefined;
		if (newest && why)
			return take(facts, { record: as({ callId: newest.id, state: 'skipped', why }), by });
		const heldUntil = (met.placedAt as number) + LONGEST_CALL_MS;
		const unknown = as({ callId: undefined, state: 'unknown' });
		return take(facts, { record: unknown, by, heldUntil });
	}
	const callId = met.callId;
	const call = facts.heldCall;
	if (!call) return { kind: 'lookUp', what: 'heldCall' };
	const ended = surelyEnded(call);
	if (ended) callEnded(item.account, call);
	const sameRun = by.placedBy === EARLIER_ITEM;
	// From attempt 2, a call newer than the previous attempt's is the number called since: this attempt's
	// own when this execution placed it for the attempt, or it has the item's Context (skipRecentlyCalled.ts).
	const { previousCallId } = item;
	if (previousCallId !== undefined && callId !== previousCallId && !sameRun) {
		const own =
			(holder.ledger === ledger && (holder.record.attempt ?? 1) === item.attempt) ||
			sameContext(call, { callContext: item.body.context ?? '' });
		const why = calledSinceReason({ ...call, to: item.body.to }, item.attempt, previousCallId);
		return take(facts, { record: as({ callId, state: 'skipped', why, own }), by, call });
	}
	const withinWindow =
		previousCallId === undefined && now - (met.placedAt as number) < item.windowMinutes * 60_000;
	if (!ended || withinWindow || sameRun) {
		if (ended && !sameRun && facts.listed === undefined) return { kind: 'lookUp', what: 'listed' };
		const listed = ended && !sameRun ? facts.listed : undefined;
		const record = listed
			? as({ callId: listed.id, state: 'skipped', why: listed.skipReason })
			: as({ callId, state: 'placed' });
		return take(facts, { record, by, ...(record.callId === callId ? { call } : {}) });
	}
	letGo(met);
	return again(facts);
}
