import type { AttemptReport, RequestOptions } from './types';

/**
 * The service's time of its last answer (its Date header), read beside a request: decoders date a call
 * that rings by it, and guards count back from it, never from n8n's clock.
 */
export function withServiceClock(options: RequestOptions = {}): {
	options: RequestOptions;
	serviceNowMs: () => number | undefined;
} {
	let serviceDate: string | undefined;
	const { observer } = options;
	return {
		options: {
			...options,
			observer: {
				...(observer?.beforeAttempt
					? { beforeAttempt: async () => await observer.beforeAttempt?.() }
					: {}),
				onAttempt(attempt: AttemptReport) {
					serviceDate = attempt.serviceDate;
					observer?.onAttempt(attempt);
				},
			},
		},
		serviceNowMs: () => {
			const ms = Date.parse(serviceDate ?? '');
			return Number.isNaN(ms) ? undefined : ms;
		},
	};
}
