import type { AttemptReport, RequestObserver } from './types';

/**
 * Latency above this many times the fastest seen, and this much above it, means requests are queueing
 * (at the service, or in n8n itself when it is busy): more of them in flight would only wait longer.
 */
const QUEUEING_FACTOR = 2;
const QUEUEING_MARGIN_MS = 15;
/** How much of each new latency the smoothed latency takes in. */
const LATENCY_SMOOTHING = 0.25;

/**
 * How many requests a fan-out keeps in flight, adapted to the service the way TCP adapts its window:
 * doubling per round while answers are fast and successful (slow start), then one more per round;
 * halved on a 429, a quarter less when latency shows requests queueing, one less on a server error or
 * a network failure, at most once per round. A 429 also pauses the whole fan-out for as long as its
 * Retry-After asks, since every other request would be refused as well until then.
 */
export class AdaptiveLimit implements RequestObserver {
	private current: number;
	private slowStart = true;
	private fastestMs = Number.POSITIVE_INFINITY;
	private smoothedMs: number | undefined;
	private successesThisRound = 0;
	/** Attempts to see before another decrease, so one burst of failures lowers the limit once. */
	private attemptsUntilNextDecrease = 0;
	private pausedUntil = 0;

	constructor(
		readonly max: number,
		initial = Math.min(max, 4),
		private readonly now: () => number = Date.now,
	) {
		this.current = Math.max(1, Math.min(max, initial));
	}

	get limit(): number {
		return this.current;
	}

	/** How long to wait before starting another request: what the latest 429 asked for, if still due. */
	get pauseMs(): number {
		return Math.max(0, this.pausedUntil - this.now());
	}

	onAttempt({ status, latencyMs, retryAfterMs }: AttemptReport): void {
		if (this.attemptsUntilNextDecrease > 0) this.attemptsUntilNextDecrease--;
		if (status === 429) {
			if (retryAfterMs !== undefined) {
				this.pausedUntil = Math.max(this.pausedUntil, this.now() + retryAfterMs);
			}
			this.decrease(Math.floor(this.current / 2));
			return;
		}
		// A server error or a dropped connection alone says little about load (a service may fail a
		// share of requests whatever their number): a step down, where a 429 halves.
		if (status === undefined || status >= 500) {
			this.decrease(this.current - 1);
			return;
		}
		this.fastestMs = Math.min(this.fastestMs, latencyMs);
		this.smoothedMs =
			this.smoothedMs === undefined
				? latencyMs
				: this.smoothedMs + LATENCY_SMOOTHING * (latencyMs - this.smoothedMs);
		const queueing =
			this.smoothedMs > this.fastestMs * QUEUEING_FACTOR &&
			this.smoothedMs > this.fastestMs + QUEUEING_MARGIN_MS;
		if (queueing) {
			// Gently: the service is answering, only more slowly.
			this.decrease(Math.floor(this.current * 0.75));
			return;
		}
		if (this.slowStart) {
			this.current = Math.min(this.max, this.current + 1);
			return;
		}
		if (++this.successesThisRound >= this.current) {
			this.successesThisRound = 0;
			this.current = Math.min(this.max, this.current + 1);
		}
	}

	private decrease(to: number): void {
		this.slowStart = false;
		if (this.attemptsUntilNextDecrease > 0) return;
		this.current = Math.max(1, to);
		this.successesThisRound = 0;
		// The requests already in flight answer before the lower limit shows any effect: a round.
		this.attemptsUntilNextDecrease = this.current * 2;
	}
}
