import type { Call } from '../../../../../shared/types';
import type { CallLedger, CallRecord } from './callLedger';
import type { Flight, Landing } from './flights';
import type { SkippedCall } from '../guards/skipRecentlyCalled';

/**
 * A number being placed right now by an execution of this n8n process: from the look-up before dialling
 * (the skip window, the previous attempt) to the landing of POST /call, the look-up after an answer that
 * named no call included. Whoever wants the same number meanwhile waits for it and takes its outcome.
 */
export interface NumberClaim extends Flight {
	/** The execution placing the call: named in the outcome of the ones that waited for it. */
	executionId: string;
	/**
	 * Its ledger: the same one for every use of the node in one execution. n8n gives the executions of
	 * the MCP Server Trigger's tool calls one execution ID, so the ID alone cannot tell them apart.
	 */
	ledger: CallLedger;
}

/**
 * Every claim of the process, by account, agent and number. Module scope on purpose: n8n runs a job as
 * many executions at once (MCP tool calls, redelivered webhooks, overlapping passes, Retry execution while
 * the original runs) and gives nodes no lock between them, but all executions of one process share this
 * module. In queue mode each worker process has its own. A claim is removed when its call lands, so the
 * map holds only the calls being placed at this moment.
 */
const claims = new Map<string, NumberClaim>();

/**
 * The claim key of a number: the account as a fingerprint of its Base URL and key (never the key), the
 * agent (its resolved ID, or the From number when From is given by number: never the picker's mode) and
 * the number called.
 */
export function numberClaimKey(account: string, agent: string, to: string): string {
	return `${account}|${agent}>${to}`;
}

/** The claim another use holds on the number right now, if any. */
export function claimOf(key: string): NumberClaim | undefined {
	return claims.get(key);
}

/** How many numbers are being placed right now in this process (memory stays bounded by it). */
export function numbersBeingPlaced(): number {
	return claims.size;
}

/**
 * Claims the number for `record`'s call; synchronous, so it is one step with the checks before it.
 * `land` frees it and hands its outcome to every use that waited.
 */
export function claimNumber(
	key: string,
	{ executionId, ledger }: { executionId: string; ledger: CallLedger },
	itemIndex: number,
	record: CallRecord,
): NumberClaim {
	let settle: (landing: Landing) => void = () => {};
	const claim: NumberClaim = {
		executionId,
		ledger,
		settled: new Promise<Landing>((resolve) => (settle = resolve)),
		land(call: Call | SkippedCall | undefined) {
			if (claims.get(key) === claim) claims.delete(key);
			settle({ call, record, itemIndex });
		},
	};
	claims.set(key, claim);
	return claim;
}

/** Who placed the number first, as the outcome of a use that waited for it says. */
export interface PlacedFirst {
	placedBy: string;
	skipReason(callId: string): string;
}

/** An earlier item of the same node run placed the number. */
export const earlierItem = (to: string, itemIndex: number): PlacedFirst => ({
	placedBy: 'an earlier item of this run',
	skipReason: (callId) =>
		`Item ${itemIndex} of this run called ${to} already (call ${callId}), so it was not called again`,
});

/** Another execution of the process (or another use in this one) held the number's claim. */
export function claimedBy(
	claim: NumberClaim,
	mine: { executionId: string; ledger: CallLedger },
	to: string,
): PlacedFirst {
	const who =
		claim.ledger === mine.ledger
			? 'another use of this node in this execution'
			: claim.executionId === mine.executionId || claim.executionId === ''
				? 'another execution'
				: `execution ${claim.executionId}`;
	const Who = who.charAt(0).toUpperCase() + who.slice(1);
	return {
		placedBy: `${who}, running at the same time`,
		skipReason: (callId: string) =>
			`${Who}, running at the same time, placed the call to ${to} (call ${callId}), so it was not called again`,
	};
}
