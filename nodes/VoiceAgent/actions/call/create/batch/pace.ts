import type { IExecuteFunctions } from 'n8n-workflow';

import { waitUnlessCancelled } from '../../../../../shared/transport/cancel';
import { type AttemptReport, type RequestObserver } from '../../../../../shared/transport/types';
import type { CallLedger } from '../model';
import type { PaceWindow } from './nodeSlots';

/** A minute and a second: the service counts a call when it arrives, and requests overtake each other. */
const PACE_WINDOW_MS = 61_000;
/** A 429 without Retry-After pauses the whole batch this long. */
const DEFAULT_PAUSE_MS = 1_000;
/** Long waits go in steps of this: n8n's sleep cannot be called off, so a stopped run leaves at most this behind. */
const STEP_MS = 1_000;

/**
 * The pace of POST /call: at most `maxPerMinute` attempts in any window, 429s included (a refused attempt may
 * count at the service); a 429 pauses the whole batch once. The times are the ledger's, so a retry or a loop's
 * next pass goes on counting.
 */
export class CallPace implements RequestObserver {
	private readonly recent: number[];
	/** The ledger's times, or from version 1.4 the node's (nodeSlots.ts). */
	private readonly window: PaceWindow;
	private stoppedBy: unknown;

	constructor(
		private readonly context: IExecuteFunctions,
		readonly maxPerMinute: number | undefined,
		ledger: CallLedger,
		private readonly now: () => number = Date.now,
		shared?: PaceWindow,
	) {
		this.recent = ledger.sentAt;
		this.window = shared ?? { recent: this.recent, pausedUntil: 0 };
		if (shared) {
			// A Retry execution brings its own attempts: they count in the node's window too.
			for (const at of this.recent) if (!shared.recent.includes(at)) shared.recent.push(at);
			shared.recent.sort((a, b) => a - b);
		}
	}

	private delayMs(): number {
		const now = this.now();
		const { recent } = this.window;
		for (const times of [recent, this.recent])
			while (times.length > 0 && times[0] <= now - PACE_WINDOW_MS) times.shift();
		const paused = Math.max(0, this.window.pausedUntil - now);
		if (this.maxPerMinute === undefined || recent.length < this.maxPerMinute) return paused;
		return Math.max(paused, recent[0] + PACE_WINDOW_MS - now);
	}

	/** Waits for a slot and takes it; every caller checks again after waking, so none overtakes the limit. */
	async beforeAttempt(): Promise<void> {
		for (let delay = this.delayMs(); delay > 0; delay = this.delayMs()) {
			if (this.stoppedBy !== undefined) break;
			await waitUnlessCancelled(this.context, Math.min(delay, STEP_MS));
		}
		if (this.stoppedBy !== undefined) throw this.stoppedBy;
		// Without a limit there is nothing to count: the saved execution keeps no times it does not need.
		if (this.maxPerMinute === undefined) return;
		const now = this.now();
		this.recent.push(now);
		if (this.window.recent !== this.recent) this.window.recent.push(now);
	}

	stop(error: unknown): void {
		this.stoppedBy ??= error;
	}

	onAttempt({ status, retryAfterMs }: AttemptReport): void {
		if (status !== 429) return;
		const until = this.now() + (retryAfterMs ?? DEFAULT_PAUSE_MS);
		this.window.pausedUntil = Math.max(this.window.pausedUntil, until);
	}
}
