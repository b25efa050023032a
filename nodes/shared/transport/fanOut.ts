import { NodeApiError } from 'n8n-workflow';

import { isTransient } from '../errors';
import { AdaptiveLimit } from './adaptiveLimit';
import { cancelledError, cancelSignalOf, throwIfCancelled, waitUnlessCancelled } from './cancel';
import type { AttemptReport, RequestObserver, VoiceAgentContext } from './types';

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

interface FanOutOptions {
	/** The most requests in flight at once. */
	maxConcurrency: number;
	/** Where the adaptive limit starts (default: 4, or the maximum when smaller). */
	initialConcurrency?: number;
	/** Pause before the later pass over transient failures. */
	laterPassDelayMs?: number;
}

const LATER_PASS_DELAY_MS = 2_000;
/** After a Retry-After pause, new items start this much later than the refused requests, due then. */
const RESUME_GRACE_MS = 10;

/** An attempt the request loop may repeat after a wait: a 429, a server error, no answer. */
function mayBeRetried({ status }: AttemptReport): boolean {
	return status === undefined || status === 429 || status >= 500;
}

/** Failures that no other item can escape either (a rejected key, a cancelled run): stop everything. */
function isFatal(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return true;
	return error.httpCode === '401' || error.httpCode === '403';
}

/**
 * One pass over `indexes`. The limit bounds the requests on the wire: a request waiting out a
 * Retry-After or a backoff gives its slot back, and its next attempt queues for one ahead of items not
 * yet started. After a 429 no attempt starts before its Retry-After has passed.
 */
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
	/** Attempts waiting for a slot: retries of items already started. */
	const waiting: Array<{ go: () => void; stop: (error: unknown) => void }> = [];
	let next = 0;
	let onWire = 0;
	let running = 0;
	let waking = false;
	let fatal: unknown;
	const stopped = () => fatal !== undefined || signal?.aborted === true;

	await new Promise<void>((resolve) => {
		const start = (index: number) => {
			running++;
			onWire++;
			let holding = true;
			const release = () => {
				if (!holding) return;
				holding = false;
				onWire--;
			};
			const observer: RequestObserver = {
				beforeAttempt: async () => {
					if (holding) return;
					const slot = new Promise<void>((go, stop) => waiting.push({ go, stop }));
					pump();
					await slot;
					holding = true;
				},
				onAttempt: (report) => {
					limit.onAttempt(report);
					// A refused or failed attempt gives its slot back while its request waits to try again;
					// any other answer ends the request, and the slot is freed when its task ends.
					if (mayBeRetried(report)) {
						release();
						pump();
					}
				},
			};
			task(items[index], observer)
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
					release();
					running--;
					pump();
				});
		};
		const pump = () => {
			if (stopped()) {
				const error = fatal ?? cancelledError(context);
				for (const attempt of waiting.splice(0)) attempt.stop(error);
			}
			while (!stopped() && !waking && onWire < limit.limit) {
				if (waiting.length === 0 && next >= indexes.length) break;
				const pause = limit.pauseMs;
				if (pause > 0) {
					waking = true;
					void waitUnlessCancelled(context, pause + RESUME_GRACE_MS)
						.catch(() => undefined)
						.then(() => {
							waking = false;
							pump();
						});
					break;
				}
				const retry = waiting.shift();
				if (retry) {
					onWire++;
					retry.go();
				} else start(indexes[next++]);
			}
			if (running === 0 && !waking && (stopped() || next >= indexes.length)) {
				signal?.removeEventListener('abort', pump);
				resolve();
			}
		};
		signal?.addEventListener('abort', pump);
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
