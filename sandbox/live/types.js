'use strict';

// The JSDoc types of the live profile: the rows as the live service stores and answers them, and what the
// sandbox keeps beside each row. Import them with `import('./types').LiveCall`.

/**
 * @typedef {object} LiveAgentSettings the fields of an agent that POST /agent writes, all of them on every
 *   upsert (a field not sent takes its zero value: "", false, 0, null)
 * @property {string} system_prompt
 * @property {string} initial_message
 * @property {string} llm_model
 * @property {string} voice_id
 * @property {string} webhook
 * @property {Record<string, unknown>[] | null} tools
 * @property {boolean} filler_words
 * @property {string[] | null} filler_words_whitelist
 * @property {Record<string, unknown>[] | null} actions
 * @property {string} voicemail_number
 * @property {boolean} chunking
 * @property {number} endpointing
 * @property {number} voice_optimization
 * @property {number} smart_endpointing_threshold
 * @property {string} language
 * @property {Record<string, unknown>[] | null} compliance_checks
 */

/**
 * @typedef {{
 *   id: number,
 *   created_at: string,
 *   updated_at: string,
 *   deleted_at: null,
 *   user_id: number,
 *   name: string,
 *   phone_number: string,
 * } & LiveAgentSettings} LiveAgent an agent row, as every answer writes it
 */

/** @typedef {{ role: 'system' | 'assistant' | 'user', content: string }} ChatMessage */

/**
 * @typedef {object} LiveCall a call row, as every answer and event writes it
 * @property {number} id
 * @property {string} created_at
 * @property {string} updated_at
 * @property {null} deleted_at
 * @property {number} user_id
 * @property {number} agent_id
 * @property {string} twilio_sid
 * @property {string} recording_sid "" until the call has ended
 * @property {string} client_number "" until the call connects, then the number called
 * @property {string} context
 * @property {boolean} in_progress true only while connected
 * @property {string} started_at the zero time until the call connects
 * @property {string} ended_at the zero time until the call ends
 * @property {number} time_seconds 0 until the call ends
 * @property {number} sentiment 0 until the call ends, then 1 to 10
 * @property {number} average_latency_ms 0 until the call ends
 * @property {boolean} user_speaks_first
 * @property {'' | 'user_hangup' | 'agent_hangup' | 'forward'} disconnect_reason
 * @property {ChatMessage[] | null} transcript null until the call ends
 */

/** @typedef {{ row: LiveAgent, createdUs: number }} LiveAgentRecord a stored agent and its sort key */

/** @typedef {'ringing' | 'connected' | 'ended'} LiveCallState */

/**
 * @typedef {object} LiveCallRecord a stored call and what the sandbox keeps beside the row
 * @property {LiveCall} row
 * @property {number} createdUs sort key of the lists
 * @property {number} startedUs when it connected (0 until then)
 * @property {string} to the number dialled (the row shows it only once connected)
 * @property {string[]} contexts every context the call had, oldest first (the transcript quotes them)
 * @property {LiveCallState} state
 * @property {{ systemPrompt: string, initialMessage: string }} script the agent's prompt and first message
 *   as they were when the call connected
 */

/** @typedef {'call_started' | 'call_ended' | 'tool_call' | 'action'} LiveEventName */

/**
 * @typedef {object} LiveEvent what the live service POSTs to an agent's webhook
 * @property {LiveEventName} event
 * @property {LiveCall} call the whole call row at the moment of the event
 * @property {unknown} [data] tool_call: a list of OpenAI tool calls; action: one of them
 */

module.exports = {};
