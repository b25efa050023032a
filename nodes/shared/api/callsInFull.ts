/** Many calls read in full at once, as exports and the call history trigger need them. */
import type { IDataObject, NodeApiError } from 'n8n-workflow';

import { dataProblemError } from '../errors';
import { fanOut, type FanOutFailure, type FanOutResult } from '../transport/fanOut';
import { type RequestPurpose } from '../transport/retryPolicy';
import { type VoiceAgentContext } from '../transport/types';
import type { Call } from '../types';
import { getCall } from './calls';

interface CallsInFullOptions {
	/** The most GET /call in flight at once; the fan-out adapts below it to the service. */
	maxConcurrency: number;
	purpose?: RequestPurpose;
}

/**
 * GET /call for every ID, a bounded number at a time. One call's failure never discards the others:
 * transient failures get a later pass, and what still fails is returned per call.
 */
export async function getCallsInFull(
	context: VoiceAgentContext,
	ids: readonly string[],
	{ maxConcurrency, purpose }: CallsInFullOptions,
): Promise<FanOutResult<string, Call>> {
	return await fanOut(
		context,
		ids,
		async (id, observer) => await getCall(context, id, { observer, purpose }),
		{ maxConcurrency },
	);
}

const MAX_LISTED = 20;

/** The reasons of the failures, most frequent first: "reason (n calls)". */
function reasons(failures: ReadonlyArray<FanOutFailure<string>>): string[] {
	const counts = new Map<string, number>();
	for (const { error } of failures) counts.set(error.message, (counts.get(error.message) ?? 0) + 1);
	return [...counts.entries()]
		.sort((a, b) => b[1] - a[1])
		.map(([message, count]) => `${message} (${count} ${count === 1 ? 'call' : 'calls'})`);
}

/**
 * One error for the calls that could not be read: how many of how many, and why. The message names
 * the most frequent reason (n8n's toasts show only the message); the description lists the others
 * and the calls.
 */
export function callsNotFetchedError(
	context: VoiceAgentContext,
	failures: ReadonlyArray<FanOutFailure<string>>,
	total: number,
	extra: { itemIndex?: number; remedy?: string } = {},
): NodeApiError {
	const [first, ...others] = reasons(failures);
	const shown = failures.slice(0, MAX_LISTED).map((failure) => failure.item);
	const more = failures.length > shown.length ? ` and ${failures.length - shown.length} more` : '';
	const description = [
		others.length > 0 ? `Other reasons: ${others.join('; ')}.` : '',
		`Not fetched: ${shown.join(', ')}${more}.`,
		extra.remedy ?? '',
	]
		.filter((part) => part !== '')
		.join(' ');
	return dataProblemError(context.getNode(), {
		message: `${failures.length} of ${total} calls could not be fetched in full: ${first}`,
		description,
		itemIndex: extra.itemIndex,
	});
}

/** An error item naming one call that could not be read, for "On Error → Continue". */
export function callErrorItem(failure: FanOutFailure<string>): IDataObject {
	return { error: failure.error.message, call_id: failure.item };
}
