/** mapWithConcurrency: results in input order, never more than the bound in flight. */
import { mapWithConcurrency } from '../../../nodes/VoiceAgent/helpers/concurrency';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An async function that records how many of its calls run at once. */
function tracked<T>(work: (item: T, index: number) => Promise<unknown>) {
	const stats = { inFlight: 0, max: 0, started: [] as number[] };
	const fn = async (item: T, index: number) => {
		stats.started.push(index);
		stats.inFlight++;
		stats.max = Math.max(stats.max, stats.inFlight);
		try {
			return await work(item, index);
		} finally {
			stats.inFlight--;
		}
	};
	return { fn, stats };
}

test('keeps the order of the items although later ones finish first', async () => {
	const items = Array.from({ length: 40 }, (_, n) => n);
	const { fn } = tracked(async (item: number) => {
		await sleep(((item * 7) % 11) * 2);
		return `r${item}`;
	});

	expect(await mapWithConcurrency(items, 6, fn)).toEqual(items.map((n) => `r${n}`));
});

test.each([1, 3, 8])('never more than %i in flight, and reaches it', async (bound) => {
	const items = Array.from({ length: 30 }, (_, n) => n);
	const { fn, stats } = tracked(async () => sleep(5));

	await mapWithConcurrency(items, bound, fn);

	expect(stats.max).toBe(bound);
	expect(stats.started.sort((a, b) => a - b)).toEqual(items);
});

test('a bound above the number of items runs them all at once', async () => {
	const { fn, stats } = tracked(async () => sleep(5));
	await mapWithConcurrency([1, 2, 3], 20, fn);
	expect(stats.max).toBe(3);
});

test('a bound below 1 still makes progress, one at a time', async () => {
	const { fn, stats } = tracked(async (item: number) => item * 2);
	expect(await mapWithConcurrency([1, 2, 3], 0, fn)).toEqual([2, 4, 6]);
	expect(stats.max).toBe(1);
});

test('no items: no calls, an empty result', async () => {
	const { fn, stats } = tracked(async () => 1);
	expect(await mapWithConcurrency([], 5, fn)).toEqual([]);
	expect(stats.started).toEqual([]);
});

test('passes each item with its index', async () => {
	expect(
		await mapWithConcurrency(['a', 'b', 'c'], 2, async (item, index) => `${index}:${item}`),
	).toEqual(['0:a', '1:b', '2:c']);
});

test('the first failure is thrown and no new call starts after it', async () => {
	const items = Array.from({ length: 20 }, (_, n) => n);
	const { fn, stats } = tracked(async (item: number) => {
		await sleep(5);
		if (item === 3) throw new Error('call_3 failed');
		return item;
	});

	await expect(mapWithConcurrency(items, 2, fn)).rejects.toThrow('call_3 failed');
	await sleep(30);
	// Item 3 fails while at most one other item is in flight: nothing after item 4 starts.
	expect(Math.max(...stats.started)).toBeLessThanOrEqual(4);
	expect(stats.inFlight).toBe(0);
});
