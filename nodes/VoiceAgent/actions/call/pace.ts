import type { IExecuteFunctions } from 'n8n-workflow';

import { waitUnlessCancelled } from '../../../shared/transport/cancel';
import { type AttemptReport, type RequestObserver } from '../../../shared/transport/types';
import type { CallLedger } from './callLedger';

/**
 * The window *Max New Calls per Minute* counts in, and a second more: the service counts a call when the
 * request arrives, and one request may take longer on its way than the next.
 */
const PACE_WINDOW_MS = 61_000;
/** A 429 without Retry-After pauses the whole batch this long. */
const DEFAULT_PAUSE_MS = 1_000;
/** Long waits go in steps of this: n8n's sleep cannot be called off, so a stopped run leaves at most this behind. */
const STEP_MS = 1_000;

/**
 * The pace of POST /call, as the transport's observer of those requests: each attempt waits for a slot
 * (never more than `maxPerMinute` attempts in any 60 s window, 429s included, since a refused attempt
 * may still count at the service), and a 429 pauses every call of the batch for as long as its
 * Retry-After asks, once for all rather than once per call. The window's attempts are kept in the
 * execution's ledger, so a *Retry On Fail* try or another pass of a loop goes on counting where the
 * last one stopped.
 */
export class CallPace implements RequestObserver {
	/** Start times (n8n's clock) of the attempts of the last minute, oldest first. */
	private readonly recent: number[];
	private pausedUntil = 0;
	/** Set when the batch stops (an item failed): no call waiting for its slot may be placed after that. */
	private stoppedBy: unknown;

	constructor(
		private readonly context: IExecuteFunctions,
		/** Undefined: no limit. */
		readonly maxPerMinute: number | undefined,
		ledger: CallLedger,
		private readonly now: () => number = Date.now,
	) {
		this.recent = ledger.sentAt;
	}

	/** How long the next attempt must wait from now; 0: it may go. */
	private delayMs(): number {
		const now = this.now();
		while (this.recent.length > 0 && this.recent[0] <= now - PACE_WINDOW_MS) this.recent.shift();
		const paused = Math.max(0, this.pausedUntil - now);
		if (this.maxPerMinute === undefined || this.recent.length < this.maxPerMinute) return paused;
		return Math.max(paused, this.recent[0] + PACE_WINDOW_MS - now);
	}

	/** Waits for a slot and takes it; every caller checks again after waking, so none overtakes the limit. */
	async beforeAttempt(): Promise<void> {
		for (let delay = this.delayMs(); delay > 0; delay = this.delayMs()) {
			if (this.stoppedBy !== undefined) break;
			await waitUnlessCancelled(this.context, Math.min(delay, STEP_MS));
		}
		if (this.stoppedBy !== undefined) throw this.stoppedBy;
		// Without a limit there is nothing to count: the saved execution keeps no times it does not need.
		if (this.maxPerMinute !== undefined) this.recent.push(this.now());
	}

	/** No further attempt goes out: each fails with `error`. */
	stop(error: unknown): void {
		this.stoppedBy ??= error;
	}

	onAttempt({ status, retryAfterMs }: AttemptReport): void {
		if (status !== 429) return;
		this.pausedUntil = Math.max(this.pausedUntil, this.now() + (retryAfterMs ?? DEFAULT_PAUSE_MS));
	}
}
