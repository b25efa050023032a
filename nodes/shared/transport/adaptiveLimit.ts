import type { RequestObserver } from './types';

/** Latency this many times the fastest seen (and this much above it) counts as the service slowing down. */
const SLOW_FACTOR = 3;
const SLOW_MARGIN_MS = 250;
const LATENCY_SMOOTHING = 0.2;

/**
 * How many requests a fan-out keeps in flight, adapted to the service as TCP adapts its window:
 * doubling per round while answers are fast and successful, then growing by one per round; halved on
 * a 429 or rising latency, one less on a server error or a network failure, at most once per round.
 */
export class AdaptiveLimit implements RequestObserver {
	private current: number;
	private growing = true;
	private fastestMs = Number.POSITIVE_INFINITY;
	private smoothedMs: number | undefined;
	private successesThisRound = 0;
	/** Attempts to see before another decrease, so one burst of 429s halves the limit once. */
	private attemptsUntilNextDecrease = 0;

	constructor(
		readonly max: number,
		initial = Math.min(max, 4),
	) {
		this.current = Math.max(1, Math.min(max, initial));
	}

	get limit(): number {
		return this.current;
	}

	onAttempt({ status, latencyMs }: { status?: number; latencyMs: number }): void {
		if (this.attemptsUntilNextDecrease > 0) this.attemptsUntilNextDecrease--;
		if (status === 429) {
			this.decrease(Math.floor(this.current / 2));
			return;
		}
		// A server error or a dropped connection alone says little about load (a service may fail a
		// share of requests whatever their number): a step down, where a 429 or slowness halves.
		if (status === undefined || status >= 500) {
			this.decrease(this.current - 1);
			return;
		}
		this.fastestMs = Math.min(this.fastestMs, latencyMs);
		this.smoothedMs =
			this.smoothedMs === undefined
				? latencyMs
				: this.smoothedMs + LATENCY_SMOOTHING * (latencyMs - this.smoothedMs);
		const slow =
			this.smoothedMs > this.fastestMs * SLOW_FACTOR &&
			this.smoothedMs > this.fastestMs + SLOW_MARGIN_MS;
		if (slow) {
			this.decrease(Math.floor(this.current / 2));
			return;
		}
		if (this.growing) {
			this.current = Math.min(this.max, this.current + 1);
			return;
		}
		if (++this.successesThisRound >= this.current) {
			this.successesThisRound = 0;
			this.current = Math.min(this.max, this.current + 1);
		}
	}

	private decrease(to: number): void {
		this.growing = false;
		if (this.attemptsUntilNextDecrease > 0) return;
		this.current = Math.max(1, to);
		this.successesThisRound = 0;
		this.attemptsUntilNextDecrease = this.current * 2;
	}
}
