/**
 * The seam for "now" in engine tests: only `Date` is faked (timers, sleeps and sockets stay real), and
 * it runs on from the instant a test sets, so the node, n8n's engine and the sandbox all read one clock.
 * A test may jump it forward while a run waits, e.g. past the end of a calling window.
 */
const REAL_TIMERS = [
	'hrtime',
	'nextTick',
	'performance',
	'queueMicrotask',
	'setImmediate',
	'clearImmediate',
	'setInterval',
	'clearInterval',
	'setTimeout',
	'clearTimeout',
] as const;

/** From now on, `Date` reads `iso` and runs on in real time. */
export function setClock(iso: string): void {
	jest.useFakeTimers({ doNotFake: [...REAL_TIMERS], now: Date.parse(iso), advanceTimers: true });
}

/** Moves the faked clock forward by `ms` at once. */
export function jumpClock(ms: number): void {
	jest.setSystemTime(Date.now() + ms);
}

export function restoreClock(): void {
	jest.useRealTimers();
}
