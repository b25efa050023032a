import { sleep, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import { getCall } from '../shared/api/calls';
import { isNotFound } from '../shared/errors';
import type { Call } from '../shared/types';
import { isPlainObject } from '../shared/validation';

/**
 * Include Call Details for an event that does not carry its call (the documented service's): a read of
 * the call, best effort. Whatever the read gives, the event runs; without the call, the item says why.
 */

/** GET /call in flight at once for Include Call Details, in this process: the others wait their turn. */
export const MAX_DETAIL_READS = 8;
/**
 * The longest a read waits for its turn. Past it the event runs without the call, so that a burst with
 * a slow service still answers each event within seconds (the read itself then takes at most 7 s).
 */
export const MAX_DETAIL_WAIT_MS = 2_000;

let detailReads = 0;
const waitingForRead: Array<() => void> = [];

/**
 * A turn to read, in order of arrival: true once it is this read's turn (the caller then must call
 * `endTurn`), false when it did not come within MAX_DETAIL_WAIT_MS.
 */
async function takeTurn(): Promise<boolean> {
	if (detailReads < MAX_DETAIL_READS) {
		detailReads++;
		return true;
	}
	let turn!: () => void;
	const given = new Promise<boolean>((resolve) => (turn = () => resolve(true)));
	waitingForRead.push(turn);
	const timer = new AbortController();
	const came = await Promise.race([
		given,
		sleep(MAX_DETAIL_WAIT_MS, timer.signal).then(
			() => false,
			() => true,
		),
	]);
	timer.abort();
	if (came) return true;
	const index = waitingForRead.indexOf(turn);
	if (index >= 0) {
		waitingForRead.splice(index, 1);
		return false;
	}
	// The turn was handed over as the wait ended: it is this read's.
	return true;
}

/** The turn passes straight to the next waiting read, or is given back. */
function endTurn(): void {
	const next = waitingForRead.shift();
	if (next) next();
	else detailReads--;
}

/** Runs a read when its turn comes; undefined when the turn did not come in time. */
export async function inTurn<T>(read: () => Promise<T>): Promise<{ value: T } | undefined> {
	if (!(await takeTurn())) return undefined;
	try {
		return { value: await read() };
	} finally {
		endTurn();
	}
}

export type CallDetails = { call: Call } | { skipped: string };

/**
 * The whole call for a documented event, only for a call of the trigger's agent: the event must name
 * that agent, and the call read must belong to it. Otherwise, or when the call cannot be read now, the
 * reason why there is no call.
 */
export async function readCallDetails(
	context: IWebhookFunctions,
	callId: string,
	data: unknown,
	agentId: string,
): Promise<CallDetails> {
	const named = isPlainObject(data) ? (data as IDataObject).agent_id : undefined;
	if (named !== agentId) {
		return {
			skipped:
				named === undefined
					? "Call details not fetched: the event does not name the call's agent"
					: "Call details not fetched: the event's call belongs to another agent",
		};
	}
	const read = await inTurn(async () =>
		getCall(context, callId, { purpose: 'webhook' }).then(
			(call) => ({ call }),
			(error: unknown) => ({ error: error as Error }),
		),
	);
	if (!read)
		return {
			skipped: `Call details not read: ${MAX_DETAIL_READS} reads of call details were under way in this n8n process for over ${MAX_DETAIL_WAIT_MS / 1000} s`,
		};
	const outcome = read.value;
	if ('error' in outcome) {
		if (isNotFound(outcome.error))
			return { skipped: 'Call details not found: the service does not know this call' };
		return { skipped: `Call details not read: ${outcome.error.message}` };
	}
	if (outcome.call.agent_id !== agentId)
		return { skipped: 'Call details not output: the call belongs to another agent' };
	return { call: outcome.call };
}
