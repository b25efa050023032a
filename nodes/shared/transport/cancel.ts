import type { NodeOperationError } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { cancellationError } from '../errors';
import type { VoiceAgentContext } from './types';

/** The execution's cancel signal, where the context has one (executions and polls; n8n 1.x included). */
export function cancelSignalOf(context: VoiceAgentContext): AbortSignal | undefined {
	const withSignal = context as { getExecutionCancelSignal?: () => AbortSignal | undefined };
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

export function cancelledError(context: VoiceAgentContext): NodeOperationError {
	return cancellationError(context.getNode(), {
		message: 'The execution was cancelled',
		description: 'The workflow was stopped while the node was waiting for the Voice Agent API.',
	});
}

export function throwIfCancelled(
	context: VoiceAgentContext,
	signal = cancelSignalOf(context),
): void {
	if (signal?.aborted) throw cancelledError(context);
}

/**
 * Waits `ms`, or less when the execution is cancelled meanwhile: then it throws at once, so a
 * stopped workflow never sits out a backoff or a Retry-After.
 */
export async function waitUnlessCancelled(context: VoiceAgentContext, ms: number): Promise<void> {
	const signal = cancelSignalOf(context);
	throwIfCancelled(context, signal);
	if (!signal) {
		await sleep(ms);
		return;
	}
	await new Promise<void>((resolve) => {
		const done = () => {
			signal.removeEventListener('abort', done);
			resolve();
		};
		signal.addEventListener('abort', done, { once: true });
		void sleep(ms).then(done);
	});
	throwIfCancelled(context, signal);
}
