/**
 * The one way both nodes talk to the Voice Agent API: authenticated requests, retries that never act
 * twice, errors that say what went wrong, and cursor pagination.
 */
export { isOutcomeUnknown } from './errors';
export { MAX_PAGE_SIZE, paginateCursor } from './pagination';
export { CREDENTIAL_TYPE, voiceAgentApiRequest } from './request';
export { backoffDelayMs, networkErrorCode, parseRetryAfterSeconds } from './retry';
export type { ApiRequest, VoiceAgentContext } from './types';
