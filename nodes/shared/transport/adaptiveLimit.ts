import type { AttemptReport, RequestObserver } from './types';

/**
 * Latency above this many times the fastest seen, and this much above it, means requests are queueing
 * (at the service, or in n8n itself when it is busy): more of them in flight would only wait longer.
 */
const QUEUEING_FACTOR = 2;
const QUEUEING_MARGIN_MS = 15;
/** How much of each new latency the smoothed latency takes in. */
const LATENCY_SMOOTHING = 0.25;
/** Where the limit goes on queueing: gently, since the service is answering, only more slowly. */
const QUEUEING_DECREASE = 0.75;
/** Where the limit goes on a 429, a server error or a network failure. */
const FAILURE_DECREASE = 0.5;

/**
 * How many requests a fan-out keeps in flight, adapted to the service the way TCP adapts its window:
 * doubling per round while answers are fast and successful (slow start), then one more per round;
 * halved on a 429, a server error or a network failure, and lowered by a quarter when latency shows
 * requests queueing, at most once per round. A 429 also pauses the whole fan-out for as long as its
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
		if (status === 429 && retryAfterMs !== undefined) {
			this.pausedUntil = Math.max(this.pausedUntil, this.now() + retryAfterMs);
		}
		if (status === undefined || status === 429 || status >= 500) {
			this.decrease(FAILURE_DECREASE);
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
			this.decrease(QUEUEING_DECREASE);
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

	private decrease(factor: number): void {
		this.slowStart = false;
		if (this.attemptsUntilNextDecrease > 0) return;
		this.current = Math.max(1, Math.floor(this.current * factor));
		this.successesThisRound = 0;
		// The requests already in flight answer before the lower limit shows any effect: a round.
		this.attemptsUntilNextDecrease = this.current * 2;
	}
}
