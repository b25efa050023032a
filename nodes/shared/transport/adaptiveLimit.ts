import type { RequestObserver } from './types';

/** Latency this many times the fastest seen (and this much above it) counts as the service slowing down. */
const SLOW_FACTOR = 3;
const SLOW_MARGIN_MS = 250;
const LATENCY_SMOOTHING = 0.2;

/**
 * How many requests a fan-out keeps in flight, adapted to the service as TCP adapts its window:
 * doubling per round while answers are fast and successful, then growing by one per round; halved on
 * a 429, a server error, a network failure or rising latency, at most once per round.
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
		const failed = status === undefined || status === 429 || status >= 500;
		if (failed) {
			this.decrease();
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
			this.decrease();
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

	private decrease(): void {
		this.growing = false;
		if (this.attemptsUntilNextDecrease > 0) return;
		this.current = Math.max(1, Math.floor(this.current / 2));
		this.successesThisRound = 0;
		this.attemptsUntilNextDecrease = this.current * 2;
	}
}
