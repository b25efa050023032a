// n8n-core keeps its settings in a user folder: the whole Jest run gets one throwaway folder (workers
// inherit the environment), removed by jest-global-teardown.js.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

module.exports = () => {
	if (process.env.N8N_USER_FOLDER) return;
	const folder = mkdtempSync(path.join(tmpdir(), 'voice-agent-core-'));
	process.env.N8N_USER_FOLDER = folder;
	process.env.VOICE_AGENT_TEST_USER_FOLDER = folder;
};
