// The campaign example's suite (call-leads-within-hours.e2e.test.mjs) again, in the maintained n8n 1.x
// line, whose Data Table node (version 1) and REST API differ from 2.x's in the harness only.
// Node's test runner gives each file its own process, so the choice stays in this file.
process.env.VOICE_AGENT_N8N_VERSION = '1.123.x';
await import('./call-leads-within-hours.e2e.test.mjs');
