import type { IExecuteFunctions } from 'n8n-workflow';

import { getCall } from '../../../shared/api/calls';
import { hasEnded } from '../../../shared/callStatus';
import { asNodeError, isTransient } from '../../../shared/errors';
import { waitUnlessCancelled } from '../../../shared/transport/cancel';
import type { Call } from '../../../shared/types';

/** Checks of a waiting call grow this much further apart each time, up to `MAX_INTERVAL_S`. */
export const BACKOFF_FACTOR = 1.5;
export const MAX_INTERVAL_S = 30;
/** How often the schedule looks for checks that are due; a new wait is picked up within this. */
const TICK_MS = 200;
/** Checks sent at once; more due at the same moment go on the next ticks, so a big batch spreads them. */
const MAX_CHECKS_IN_FLIGHT = 10;

interface WaitPlan {
	maxWaitMs: number;
	firstIntervalMs: number;
	/** Checked every tick: true ends the wait at once with the call as last seen (nobody needs it any more). */
	giveUp?: () => boolean;
}

/** Where a wait ended: the call as last seen, and the last check's failure if it failed. */
interface WaitResult {
	latest: Call;
	lastFailure?: Error;
}

interface Waiter {
	id: string;
	latest: Call;
	intervalMs: number;
	dueAt: number;
	deadline: number;
	giveUp?: () => boolean;
	checking: boolean;
	lastFailure?: Error;
	resolve(result: WaitResult): void;
	reject(error: unknown): void;
}

/**
 * One schedule for every wait of a node run: a single loop checks each waiting call (GET /call) when
 * its check is due, each check further apart (×1.5, at most every 30 s), never two checks of one call
 * at once. A stopped workflow ends every wait at once; so does `stop` (the batch failed).
 */
export class WaitSchedule {
	private readonly waiters = new Set<Waiter>();
	private running = false;
	private checksInFlight = 0;
	/** Once stopped, a wait asked for later (a call whose POST was in flight) ends at once too. */
	private stoppedBy: unknown;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly now: () => number = Date.now,
	) {}

	/** Resolves when the call has ended or its max wait is over; a check that fails for good rejects. */
	async waitFor(call: Call, plan: WaitPlan): Promise<WaitResult> {
		if (this.stoppedBy !== undefined) throw this.stoppedBy;
		if (hasEnded(call)) return { latest: call };
		const start = this.now();
		return await new Promise<WaitResult>((resolve, reject) => {
			this.waiters.add({
				id: call.id,
				latest: call,
				intervalMs: plan.firstIntervalMs,
				dueAt: start + Math.min(plan.firstIntervalMs, plan.maxWaitMs),
				deadline: start + plan.maxWaitMs,
				giveUp: plan.giveUp,
				checking: false,
				resolve,
				reject,
			});
			if (!this.running) void this.run();
		});
	}

	/** Ends every wait with `error` (e.g. the batch stops after an item failed). */
	stop(error: unknown): void {
		this.stoppedBy ??= error;
		for (const waiter of this.waiters) waiter.reject(error);
		this.waiters.clear();
	}

	private async run(): Promise<void> {
		this.running = true;
		try {
			while (this.waiters.size > 0) {
				const now = this.now();
				for (const waiter of this.waiters) {
					if (waiter.giveUp?.() === true && !waiter.checking) {
						this.finish(waiter);
						waiter.resolve({ latest: waiter.latest, lastFailure: waiter.lastFailure });
						continue;
					}
					if (this.checksInFlight >= MAX_CHECKS_IN_FLIGHT) break;
					if (!waiter.checking && waiter.dueAt <= now) void this.check(waiter);
				}
				// With every check slot taken, overdue waiters wait a tick instead of spinning the loop.
				const idle = [...this.waiters].filter((waiter) => !waiter.checking);
				if (this.waiters.size === 0) break;
				const nextDue = Math.min(...idle.map((waiter) => waiter.dueAt));
				const delay =
					this.checksInFlight >= MAX_CHECKS_IN_FLIGHT
						? TICK_MS
						: Math.max(0, Math.min(TICK_MS, nextDue - now));
				await waitUnlessCancelled(this.context, delay);
			}
		} catch (error) {
			// Stopped workflow: every wait ends now, not at its next check.
			this.stop(error);
		} finally {
			this.running = false;
		}
	}

	private async check(waiter: Waiter): Promise<void> {
		waiter.checking = true;
		this.checksInFlight++;
		try {
			waiter.latest = await getCall(this.context, waiter.id);
			waiter.lastFailure = undefined;
		} catch (error) {
			// A check failing for a while (5xx, network) is no reason to give up on the call.
			if (!isTransient(error)) {
				this.finish(waiter);
				waiter.reject(asNodeError(this.context.getNode(), error));
				return;
			}
			waiter.lastFailure = error as Error;
		} finally {
			waiter.checking = false;
			this.checksInFlight--;
		}
		if (!this.waiters.has(waiter)) return;
		const now = this.now();
		if (hasEnded(waiter.latest) || now >= waiter.deadline) {
			this.finish(waiter);
			waiter.resolve({ latest: waiter.latest, lastFailure: waiter.lastFailure });
			return;
		}
		waiter.intervalMs = Math.min(MAX_INTERVAL_S * 1000, waiter.intervalMs * BACKOFF_FACTOR);
		waiter.dueAt = now + Math.min(waiter.intervalMs, waiter.deadline - now);
	}

	private finish(waiter: Waiter): void {
		this.waiters.delete(waiter);
	}
}
