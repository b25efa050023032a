import type { IDataObject } from 'n8n-workflow';

import type { Agent } from '../types';

/**
 * The fields of POST /agent that an update must send to keep them on a service that replaces a whole
 * agent (the live one), read from the agent as the service holds it. Only what the upsert takes: never
 * `id`, `phone_number`, times or the service's own bookkeeping.
 */
const UPSERT_FIELDS = [
	'system_prompt',
	'initial_message',
	'llm_model',
	'voice_id',
	'webhook',
	'tools',
	'filler_words',
	'filler_words_whitelist',
	'actions',
	'voicemail_number',
	'endpointing',
	'voice_optimization',
	'smart_endpointing_threshold',
	'language',
	'compliance_checks',
	'chunking',
] as const;

/** The models an upsert accepts; a listing may show an older one, which is left out (the service keeps it). */
const UPSERT_MODELS: ReadonlySet<unknown> = new Set(['gpt-4o', 'service-voice']);

/** The agent's stored upsert fields, as given back with an update; `null` and missing ones are left out. */
export function keptFieldsOf(agent: Agent): IDataObject {
	const kept: IDataObject = {};
	for (const field of UPSERT_FIELDS) {
		const value = agent[field];
		if (value === undefined || value === null) continue;
		if (field === 'llm_model' && !UPSERT_MODELS.has(value)) continue;
		kept[field] = value;
	}
	return kept;
}
