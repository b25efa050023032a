/**
 * The one way the nodes talk to the Voice Agent API: authenticated requests, a retry policy that never
 * acts twice and knows where it runs, errors that say what went wrong, cursor pagination and fan-out.
 */
export { AdaptiveLimit } from './adaptiveLimit';
export { cancelledError, cancelSignalOf, throwIfCancelled, waitUnlessCancelled } from './cancel';
export { API_KEY_REJECTED } from './errors';
export { describeNetworkFailure, networkErrorCode } from './network';
export { fanOut, type FanOutFailure, type FanOutResult } from './fanOut';
export { cursorPages, MAX_PAGE_SIZE, paginateCursor, type CursorList } from './pagination';
export { voiceAgentApiRequest } from './request';
export { RETRY_BUDGETS, type RequestPurpose } from './retryPolicy';
export type {
	ApiRequest,
	AttemptReport,
	BodyRequestOptions,
	RequestObserver,
	RequestOptions,
	VoiceAgentContext,
} from './types';
