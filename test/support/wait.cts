/** Waiting in tests: a plain delay, and polling until something becomes true. */

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` until it returns a value other than undefined; fails after `timeoutMs`, saying what it
 * waited for (`what`, or what the function says at that moment).
 */
export async function waitFor<T>(
	what: string | (() => string),
	check: () => T | undefined | Promise<T | undefined>,
	timeoutMs = 10_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(
				`Timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
			);
		await sleep(10);
	}
}
