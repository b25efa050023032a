/**
 * Maps items with at most `concurrency` calls of `fn` in flight, and returns the results in the
 * order of the items. The first failure stops new calls from starting and is thrown.
 */
export async function mapWithConcurrency<T, R>(
	items: readonly T[],
	concurrency: number,
	fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	let failed = false;
	async function worker(): Promise<void> {
		while (!failed && next < items.length) {
			const index = next++;
			let done = false;
			try {
				results[index] = await fn(items[index], index);
				done = true;
			} finally {
				if (!done) failed = true;
			}
		}
	}
	const workers = Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, worker);
	await Promise.all(workers);
	return results;
}
