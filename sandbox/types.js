'use strict';

// Shared JSDoc types of the sandbox's data. Import them with `import('./types').Agent`.

/**
 * @typedef {object} AgentSettings the fields of an agent that POST /agent sets
 * @property {string} system_prompt
 * @property {string} initial_message
 * @property {string} llm_model
 * @property {string} voice_id
 * @property {string} webhook
 * @property {Record<string, unknown>[]} tools stored as given
 * @property {boolean} filler_words
 * @property {string[]} filler_words_whitelist
 * @property {Record<string, unknown>[]} actions
 * @property {string} voicemail_number
 * @property {boolean} chunking
 * @property {number} endpointing
 * @property {number} voice_optimization
 * @property {number} smart_endpointing_threshold
 * @property {string} language
 * @property {Record<string, unknown>[]} compliance_checks
 */

/**
 * @typedef {AgentSettings & {
 *   id: string,
 *   name: string,
 *   phone_number: string,
 *   created_at: string,
 *   updated_at: string,
 *   created_ms: number,
 * }} Agent a stored agent; `created_ms` is the sort key and never leaves the sandbox
 */

/** @typedef {string} CallStatus in_progress, then completed or failed (or the variants' end statuses) */

/** @typedef {{ speaker: 'agent' | 'customer', text: string }} TranscriptEntry */

/**
 * @typedef {object} Call a stored call; `created_ms` and `contexts` never leave the sandbox
 * @property {string} id
 * @property {string} agent_id
 * @property {string} from
 * @property {string} to
 * @property {string} context the latest context
 * @property {string[]} contexts every context the call had, oldest first (the transcript mentions them)
 * @property {boolean} user_speaks_first
 * @property {CallStatus} status
 * @property {string} created_at
 * @property {string} updated_at
 * @property {string | null} ended_at
 * @property {number | null} duration seconds
 * @property {TranscriptEntry[]} transcript
 * @property {number} created_ms
 */

module.exports = {};
