import { NodeApiError } from 'n8n-workflow';

import { AdaptiveLimit } from './adaptiveLimit';
import { cancelSignalOf, throwIfCancelled, waitUnlessCancelled } from './cancel';
import { isTransient } from './errors';
import type { RequestObserver, VoiceAgentContext } from './types';

export interface FanOutFailure<T> {
	index: number;
	item: T;
	error: Error;
}

export interface FanOutResult<T, R> {
	/** In the order of the items; undefined where the item failed. */
	results: Array<R | undefined>;
	failures: Array<FanOutFailure<T>>;
}

export interface FanOutOptions {
	/** The most requests in flight at once. */
	maxConcurrency: number;
	/** Where the adaptive limit starts (default: 4, or the maximum when smaller). */
	initialConcurrency?: number;
	/** Pause before the later pass over transient failures. */
	laterPassDelayMs?: number;
}

const LATER_PASS_DELAY_MS = 2_000;

/** Failures that no other item can escape either (a rejected key, a cancelled run): stop everything. */
function isFatal(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return true;
	return error.httpCode === '401' || error.httpCode === '403';
}

async function runPass<T, R>(
	context: VoiceAgentContext,
	items: readonly T[],
	indexes: number[],
	task: (item: T, observer: RequestObserver) => Promise<R>,
	limit: AdaptiveLimit,
	results: Array<R | undefined>,
): Promise<Array<FanOutFailure<T>>> {
	const signal = cancelSignalOf(context);
	const failures: Array<FanOutFailure<T>> = [];
	let next = 0;
	let inFlight = 0;
	let fatal: unknown;
	await new Promise<void>((resolve) => {
		const pump = () => {
			while (
				fatal === undefined &&
				!signal?.aborted &&
				inFlight < limit.limit &&
				next < indexes.length
			) {
				const index = indexes[next++];
				inFlight++;
				task(items[index], limit)
					.then(
						(result) => {
							results[index] = result;
						},
						(error: unknown) => {
							if (isFatal(error)) fatal ??= error;
							failures.push({ index, item: items[index], error: error as Error });
						},
					)
					.finally(() => {
						inFlight--;
						pump();
					});
			}
			if (inFlight === 0) resolve();
		};
		pump();
	});
	if (fatal !== undefined) throw fatal;
	throwIfCancelled(context, signal);
	return failures;
}

/**
 * Runs `task` for every item with a bounded number in flight that adapts to the service. One item's
 * failure never discards the others: transient failures get a later pass, and what still fails is
 * returned per item. Only failures no item can escape (a rejected API key, cancellation) stop it.
 */
export async function fanOut<T, R>(
	context: VoiceAgentContext,
	items: readonly T[],
	task: (item: T, observer: RequestObserver) => Promise<R>,
	options: FanOutOptions,
): Promise<FanOutResult<T, R>> {
	const results = new Array<R | undefined>(items.length);
	const limit = new AdaptiveLimit(options.maxConcurrency, options.initialConcurrency);
	const all = items.map((_, index) => index);
	let failures = await runPass(context, items, all, task, limit, results);
	const transient = failures.filter((failure) => isTransient(failure.error));
	if (transient.length > 0) {
		await waitUnlessCancelled(context, options.laterPassDelayMs ?? LATER_PASS_DELAY_MS);
		const final = failures.filter((failure) => !isTransient(failure.error));
		const gentler = new AdaptiveLimit(
			options.maxConcurrency,
			Math.max(1, Math.floor(limit.limit / 2)),
		);
		const again = transient.map((failure) => failure.index);
		failures = [...final, ...(await runPass(context, items, again, task, gentler, results))];
	}
	failures.sort((a, b) => a.index - b.index);
	return { results, failures };
}
