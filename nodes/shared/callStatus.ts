/**
 * The one rule for "has this call ended", used wherever the nodes ask it: waiting for a call, Skip
 * Numbers, Set Context's live call, and both triggers. The contract publishes only `in_progress`,
 * `completed` and `failed` and not the full set, so the rule names the statuses of a call that is still
 * going on and takes every other status as an end, passed through as the service gave it.
 */

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
]);

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
