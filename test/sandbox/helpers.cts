/**
 * Helpers of the sandbox conformance suite. The field lists restate the service's documented shapes on
 * purpose, independent of the sandbox's own lists, so a field the sandbox drops or adds fails a test.
 */

/** The fields of an agent in GET /agents (docs/service.md, "Agent answers"), sorted. */
export const AGENT_LIST_FIELDS = [
	'id',
	'name',
	'phone_number',
	'system_prompt',
	'initial_message',
	'llm_model',
	'voice_id',
	'webhook',
	'tools',
	'filler_words',
	'filler_words_whitelist',
	'created_at',
	'updated_at',
].sort();

/** An agent as POST /agent and GET /agent answer it: the list fields and the other settings, sorted. */
export const AGENT_FIELDS = [
	...AGENT_LIST_FIELDS,
	'actions',
	'voicemail_number',
	'chunking',
	'endpointing',
	'voice_optimization',
	'smart_endpointing_threshold',
	'language',
	'compliance_checks',
].sort();

/** The fields a call has in every full shape (GET /call, POST /call, POST /call/context). */
const CALL_SHAPE_FIELDS = ['id', 'agent_id', 'from', 'to', 'context', 'status', 'created_at'];

/** GET /call and POST /call: the shape fields and the call's outcome, sorted. */
export const CALL_FIELDS = [...CALL_SHAPE_FIELDS, 'ended_at', 'duration', 'transcript'].sort();

/** A call in a list (GET /calls), sorted. */
export const CALL_LIST_FIELDS = [
	'id',
	'agent_id',
	'client_number',
	'context',
	'status',
	'created_at',
].sort();

/** POST /call/context: the shape fields and when the context changed, sorted. */
export const CALL_CONTEXT_FIELDS = [...CALL_SHAPE_FIELDS, 'updated_at'].sort();

/** Newest first: created_at descending, id descending on equal times. */
export function compareNewestFirst(
	a: { created_at: string; id: string },
	b: { created_at: string; id: string },
): number {
	if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
	return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** GET a sandbox URL directly (for sandboxes started without the test helper); the parsed JSON body. */
export async function getJson(url: string, key = 'sandbox-key'): Promise<any> {
	const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
	return response.json();
}
