import type { Agent } from '../types';

/** What a redacted token reads as. */
export const REDACTED = 'REDACTED';

/** `token=` at the start of a query parameter, up to the next parameter or the fragment. */
const TOKEN_QUERY_VALUE = /([?&]token=)[^&#]*/gi;

/** A URL with the value of every `token` query parameter replaced, so outputs do not open the URL. */
function redactToken(url: string): string {
	return url.replace(TOKEN_QUERY_VALUE, `$1${REDACTED}`);
}

/**
 * An agent as node outputs show it: its webhook without its token (the Voice Agent Trigger's, or any
 * other receiver's), since outputs are kept in execution history that other n8n users read.
 */
export function redactAgent<T extends Agent>(agent: T): T {
	if (typeof agent?.webhook !== 'string') return agent;
	return { ...agent, webhook: redactToken(agent.webhook) };
}
