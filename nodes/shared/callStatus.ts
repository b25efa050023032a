/**
 * The rules for "has this call ended", used wherever the nodes ask it. The contract publishes only
 * `in_progress`, `completed` and `failed` and not the full set. Waiting for a call, Set Context's live
 * call and both triggers take every status not listed as live as an end (`hasEnded`), so no wait lasts
 * for ever; whether a number may be dialled again asks the stricter `surelyEnded`, so a status nobody
 * listed never lets a second call through.
 */

/**
 * The statuses the nodes give a call whose service writes none (the live service: `in_progress` and
 * `ended_at` only). A call there rings before it connects, and one that never connects looks like one
 * still ringing for ever: past `NEVER_CONNECTED_AFTER_MS` by the service's own clock it is taken as never
 * connected, an end.
 */
export const RINGING = 'ringing';
export const NOT_CONNECTED = 'not_connected';
const IN_PROGRESS = 'in_progress';
const COMPLETED = 'completed';

/**
 * How long a call may ring before it counts as never connected: far longer than any phone network lets a
 * phone ring (one or two minutes), so a call that may still connect is never taken as over.
 */
export const NEVER_CONNECTED_AFTER_MS = 10 * 60_000;

/**
 * The status of a call whose service writes none: `completed` once it has an end time, `in_progress` while
 * connected, `ringing` before, and `not_connected` once it has rung for longer than any phone rings, by the
 * service's time of answering (`serviceNowMs`, its Date header); without that time it stays `ringing`.
 * `createdAtMs` is the latest instant its `created_at` can name (`serviceTime.ts`).
 */
export function derivedStatus(
	call: { connected: boolean; ended: boolean; createdAtMs: number },
	serviceNowMs?: number,
): string {
	if (call.ended) return COMPLETED;
	if (call.connected) return IN_PROGRESS;
	const ringingMs = (serviceNowMs ?? NaN) - call.createdAtMs;
	return ringingMs >= NEVER_CONNECTED_AFTER_MS ? NOT_CONNECTED : RINGING;
}

/**
 * Whether a call never connected: it still rings (the live service's calls until they connect), or rang past
 * the never-connected bound. Its person was not reached, whatever happens to it later.
 */
export function neverConnected(call: { status?: unknown }): boolean {
	return call.status === RINGING || call.status === NOT_CONNECTED;
}

/**
 * The number a call was made to, as the service writes it: `to`, or a list's `client_number`; '' while a
 * live call rings (the live service writes it once the call connects).
 */
export function numberCalled(call: { to?: string; client_number?: string }): string {
	return call.to || call.client_number || '';
}

/**
 * Statuses of a call not over yet: the contract's `in_progress`, and the spellings voice and telephony
 * services use for a call being set up or under way. A call ended with a status nobody listed
 * (`busy`, `no-answer`, `voicemail`, ...) is not among them, so it counts as ended.
 */
const LIVE_STATUSES: ReadonlySet<string> = new Set([
	'in_progress',
	'in-progress',
	'inprogress',
	'ongoing',
	'active',
	'queued',
	'initiated',
	'dialing',
	'ringing',
	'registered',
	'started',
	'pending',
	'scheduled',
	'connecting',
	'answered',
	'forwarding',
	'transferring',
	'on_hold',
	'on-hold',
	'in progress',
]);

/**
 * Statuses that say a call is over: the contract's `completed` and `failed`, and the spellings voice and
 * telephony services use for a call that ended, was not answered or never connected.
 */
const END_STATUSES: ReadonlySet<string> = new Set([
	'completed',
	NOT_CONNECTED,
	'complete',
	'failed',
	'ended',
	'finished',
	'busy',
	'no-answer',
	'no_answer',
	'noanswer',
	'not_answered',
	'missed',
	'canceled',
	'cancelled',
	'rejected',
	'declined',
	'voicemail',
	'hangup',
	'hung_up',
	'expired',
	'timeout',
	'timed_out',
	'error',
	'unreachable',
	'abandoned',
	'terminated',
]);

/**
 * The longest a call may be in progress: a call that nothing says has ended counts as in progress for
 * this long at most when the node decides whether a number may be dialled (the gate, the skip window).
 */
export const LONGEST_CALL_MS = 4 * 3_600_000;

function given(value: unknown): boolean {
	return value !== undefined && value !== null && value !== '';
}

/**
 * Whether a call has ended: it has an end time, or its status is given and is not one of a live call.
 * A call without a status and without an end time is taken as still going on (nothing says it ended).
 */
export function hasEnded(call: { status?: unknown; ended_at?: unknown }): boolean {
	if (given(call.ended_at)) return true;
	if (typeof call.status !== 'string' || call.status.trim() === '') return false;
	return !LIVE_STATUSES.has(call.status.trim().toLowerCase());
}

/** Whether a call is still going on: the opposite of `hasEnded`. */
export function isLive(call: { status?: unknown; ended_at?: unknown }): boolean {
	return !hasEnded(call);
}

/**
 * Whether a call surely ended: it has an end time, or a status that says it is over. Where a number may be
 * dialled again (the gate, the skip window), only this frees it: a status nobody listed (a live one
 * such as a service's own spelling of "ringing", or an end) keeps it held, within `LONGEST_CALL_MS`.
 */
export function surelyEnded(call: { status?: unknown; ended_at?: unknown }): boolean {
	if (given(call.ended_at)) return true;
	return typeof call.status === 'string' && END_STATUSES.has(call.status.trim().toLowerCase());
}
