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
 * Across n8n processes only the call list is shared, and the live service lists a ringing call without its
 * number: a look-up by number cannot see it. So an item whose number is looked up first waits while a call of
 * its agent, not placed by this process, rings with no number; once they connect or count as never
 * connected, the look-up runs again.
 */

/** Looks again after 1 s, then each 1.5 times later, at most every 5 s. */
const FIRST_CHECK_MS = 1_000;
const MAX_CHECK_MS = 5_000;
/** The service's clock writes `created_at` and its Date header to the second at worst. */
const SECOND_MS = 1_000;

interface RingingCheck {
	account: string;
	filter: CallFilter;
	to: string;
	itemIndex: number;
}

/**
 * Every call created before `readTo` (service's clock) was read; `ringing`: those that rang with no number.
 * A call never rings again once connected, so a later read stops at `readTo` and asks for these by ID.
 */
interface AgentCalls {
	readTo: number;
	ringing: Map<string, number>;
}

/** By account and agent, module scope: every execution's reads build on each other; idle entries go. */
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

/** The agent's calls ringing with no number, not placed here: newest pages back to the last read, or the bound. */
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

/** True when it waited (look again); a call ringing past the never-connected bound fails the item. */
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
