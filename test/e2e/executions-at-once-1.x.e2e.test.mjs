// The executions-at-once suite (executions-at-once.e2e.test.mjs) again, in the maintained n8n 1.x line,
// whose MCP Server Trigger (version 2) also speaks Streamable HTTP. Node's test runner gives each file its
// own process, so the choice stays in this file.
process.env.VOICE_AGENT_N8N_VERSION = '1.123.x';
await import('./executions-at-once.e2e.test.mjs');
