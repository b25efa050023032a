import type { IExecuteFunctions } from 'n8n-workflow';

import { callPages, getCall, type CallFilter } from '../../../../../shared/api/calls';
import { NEVER_CONNECTED_AFTER_MS, numberCalled, RINGING } from '../../../../../shared/callStatus';
import { dataProblemError } from '../../../../../shared/errors';
import { latestInstantOf } from '../../../../../shared/serviceTime';
import { waitUnlessCancelled } from '../../../../../shared/transport/cancel';
import type { AttemptReport } from '../../../../../shared/transport/types';
import type { CallSummary } from '../../../../../shared/types';
import { placedHere } from '../gate/numberGate';

/*
 * Across n8n processes (queue-mode workers) only the service's call list is shared, and a service may list
 * a call that rings without its number (the live one fills `client_number` once the call connects): the
 * skip window's look-up by number cannot see it. Before deciding, an item whose number is looked up in the
 * list (a skip window above 0, or Call Again's attempt 2 on) reads its agent's calls of the last
 * NEVER_CONNECTED_AFTER_MS and waits while any of them rings with no number and was not placed by this
 * process: once they connect (their number shows) or count as never connected, the look-up runs again.
 */

/** The first look again at calls that ring elsewhere, then each 1.5 times later, at most every 5 s. */
const FIRST_CHECK_MS = 1_000;
const MAX_CHECK_MS = 5_000;
/** The service's clock writes `created_at` and its Date header to the second at worst. */
const SECOND_MS = 1_000;

/** What the check needs of an item. */
interface RingingCheck {
	account: string;
	/** The agent's calls to the number: its agent ID, when From named the agent. */
	filter: CallFilter;
	to: string;
	itemIndex: number;
}

/**
 * What this process knows of an agent's calls, from earlier reads: every call created before `readTo`
 * (the service's clock, ms) was read, and of those the ones that rang with no number are in `ringing`
 * (ID → created, ms). A call never rings again once connected or ended, so a later read stops at
 * `readTo` and asks only for these by ID.
 */
interface AgentCalls {
	readTo: number;
	ringing: Map<string, number>;
}

/**
 * By account and agent ('' for the account's calls). Module scope: the reads of every execution of the
 * process build on each other. An agent's entry goes once nothing of it rings and its last read is older
 * than the never-connected bound: bounded by the agents whose calls rang in the last 10 minutes.
 */
const agentsCalls = new Map<string, AgentCalls>();

const ringsUnknown = (call: CallSummary) => call.status === RINGING && numberCalled(call) === '';

function forgetOld(nowMs: number): void {
	for (const [key, known] of agentsCalls) {
		for (const [id, created] of known.ringing)
			if (created < nowMs - NEVER_CONNECTED_AFTER_MS) known.ringing.delete(id);
		if (known.ringing.size === 0 && known.readTo < nowMs - NEVER_CONNECTED_AFTER_MS)
			agentsCalls.delete(key);
	}
}

/**
 * The agent's calls (the account's when From gave a phone number) that ring with no number and were not
 * placed by this process: the newest pages, back to the never-connected bound or to where the process
 * read before (one page when it reads often), then those that rang before, by ID.
 */
async function ringingUnknown(context: IExecuteFunctions, check: RingingCheck) {
	const agentId = check.filter.agentId ?? '';
	const key = `${check.account}|${agentId}`;
	const known = agentsCalls.get(key) ?? { readTo: -Infinity, ringing: new Map() };
	let serviceDate: string | undefined;
	const observer = { onAttempt: (attempt: AttemptReport) => (serviceDate ??= attempt.serviceDate) };
	const seen = new Map<string, CallSummary>();
	let serviceNow = NaN;
	for await (const calls of callPages(context, agentId ? { agentId } : {}, { observer })) {
		serviceNow = Date.parse(serviceDate ?? '');
		const now = Number.isNaN(serviceNow) ? Date.now() : serviceNow;
		const bound = Math.max(now - NEVER_CONNECTED_AFTER_MS, known.readTo - SECOND_MS);
		for (const call of calls) seen.set(call.id, call);
		const oldest = calls.at(-1);
		if (oldest === undefined || latestInstantOf(oldest.created_at) < bound) break;
	}
	for (const call of seen.values()) {
		if (ringsUnknown(call)) known.ringing.set(call.id, latestInstantOf(call.created_at));
		else known.ringing.delete(call.id);
	}
	// Without the service's time (no Date header) nothing is known for next time: each read goes back in full.
	if (!Number.isNaN(serviceNow)) known.readTo = Math.max(known.readTo, serviceNow - SECOND_MS);
	agentsCalls.set(key, known);
	forgetOld(Number.isNaN(serviceNow) ? Date.now() : serviceNow);
	const ids = [...known.ringing.keys()].filter((id) => !placedHere(check.account, id));
	return { known, calls: ids.map((id) => seen.get(id) ?? ({ id } as CallSummary)) };
}

/**
 * Waits while calls of the item's agent placed elsewhere ring with no number (above). True when it
 * waited: the caller then looks the number up again. A call still ringing past the never-connected bound
 * (a service that gives no time to tell it by) fails the item: nothing is dialled.
 */
export async function waitedForRinging(
	context: IExecuteFunctions,
	check: RingingCheck,
): Promise<boolean> {
	const { known, calls } = await ringingUnknown(context, check);
	// Calls the process saw ringing before and did not read now are asked for at once.
	let ringing = await stillRinging(context, known, calls, (call) => call.status === undefined);
	if (ringing.length === 0) return false;
	const deadline = Date.now() + NEVER_CONNECTED_AFTER_MS + MAX_CHECK_MS;
	for (
		let delay = FIRST_CHECK_MS;
		ringing.length > 0;
		delay = Math.min(delay * 1.5, MAX_CHECK_MS)
	) {
		if (Date.now() >= deadline) throw ringingTooLong(context, check, ringing[0]);
		await waitUnlessCancelled(context, delay);
		ringing = await stillRinging(context, known, ringing, () => true);
	}
	return true;
}

/** The calls that still ring with no number, those `ask` picks read again by ID. */
async function stillRinging(
	context: IExecuteFunctions,
	known: AgentCalls,
	calls: CallSummary[],
	ask: (call: CallSummary) => boolean,
): Promise<CallSummary[]> {
	const still: CallSummary[] = [];
	for (const call of calls) {
		// A read that fails says nothing of the call: it is looked at again.
		const now = ask(call) ? await getCall(context, call.id).catch(() => call) : call;
		if (now.status === undefined || ringsUnknown(now)) still.push(now);
		else known.ringing.delete(call.id);
	}
	return still;
}

function ringingTooLong(context: IExecuteFunctions, check: RingingCheck, call: CallSummary) {
	return dataProblemError(context.getNode(), {
		message: `The call to ${check.to} was not placed: call ${call.id} of this agent, placed elsewhere, has rung for over ${NEVER_CONNECTED_AFTER_MS / 60_000} minutes and the service does not show its number [item ${check.itemIndex}]`,
		description:
			'It may be a call to this number, so the node does not dial it. Run the item again later, or check the call list.',
		itemIndex: check.itemIndex,
	});
}
