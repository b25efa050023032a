import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * What one n8n process (a main or an `n8n webhook` processor) takes on at once, across every Voice Agent
 * Trigger it serves: module state is shared by all of them. When events come faster than the process
 * answers them, answering each one later and later makes every answer miss the sender's timeout and the
 * whole burst comes back as redeliveries (a burst collapses to nothing). Bounding the work keeps the
 * answers it does give quick: past the bound a delivery is refused at once, to come again later.
 */

/**
 * Deliveries taken on and not yet answered by n8n, in this process: from the trigger's first look at
 * them until n8n ends their answer (the run started or queued with Respond Immediately, the run done
 * otherwise). About what one process answers in a few seconds (docs/scaling.md), so that what it takes on
 * is answered well within the sender's 10 s.
 */
export const MAX_DELIVERIES_IN_FLIGHT = 48;
/** GET /call in flight at once for Include Call Details, in this process: the others wait their turn. */
export const MAX_DETAIL_READS = 8;
/** What a refused delivery's Retry-After asks for, in seconds. */
export const SHED_RETRY_AFTER_S = 5;

let inFlight = 0;
let detailReads = 0;
const waitingForRead: Array<() => void> = [];

/** The parts of n8n's express request and response that say whether the sender still waits. */
interface Connection {
	destroyed?: boolean;
	socket?: { destroyed?: boolean } | null;
	writableEnded?: boolean;
	once?(event: 'close', listener: () => void): unknown;
}

/** Deliveries in flight in this process now. */
export function deliveriesInFlight(): number {
	return inFlight;
}

/**
 * Takes on the delivery when the process has room, synchronously: it then counts until n8n's answer to
 * it ends (or its connection closes). False when the process is at its bound: refuse it at once.
 */
export function takeOn(context: IWebhookFunctions): boolean {
	if (inFlight >= MAX_DELIVERIES_IN_FLIGHT) return false;
	inFlight++;
	let counted = true;
	const release = () => {
		if (!counted) return;
		counted = false;
		inFlight--;
	};
	const response = context.getResponseObject() as unknown as Connection;
	if (typeof response.once === 'function') response.once('close', release);
	else release();
	return true;
}

/**
 * Whether the sender of this delivery stopped waiting for the answer (it timed out and closed the
 * connection): whatever is done for it now is not seen, and the service delivers the event again.
 */
export function senderGone(context: IWebhookFunctions): boolean {
	const request = context.getRequestObject() as unknown as Connection;
	const response = context.getResponseObject() as unknown as Connection;
	// Not the request's own `destroyed`: node sets it once the body has been read.
	return (
		request.socket?.destroyed === true ||
		(response.destroyed === true && response.writableEnded !== true)
	);
}

/**
 * Runs a read of call details when its turn comes: at most MAX_DETAIL_READS at once in this process, the
 * others in order of arrival, so that a burst does not pile reads onto the service and each slow.
 */
export async function withDetailReadSlot<T>(read: () => Promise<T>): Promise<T> {
	if (detailReads >= MAX_DETAIL_READS)
		await new Promise<void>((resolve) => waitingForRead.push(resolve));
	else detailReads++;
	try {
		return await read();
	} finally {
		// The slot passes straight to the next waiting read, or is given back.
		const next = waitingForRead.shift();
		if (next) next();
		else detailReads--;
	}
}
