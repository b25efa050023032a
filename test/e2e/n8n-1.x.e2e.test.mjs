// The single-process suite (n8n.e2e.test.mjs) again, in the maintained n8n 1.x line: the package
// supports both majors, and whatever differs between them lives in the harness (scripts/lib).
// Node's test runner gives each file its own process, so the choice stays in this file.
process.env.VOICE_AGENT_N8N_VERSION = '1.123.x';
await import('./n8n.e2e.test.mjs');
