// Removes the user folder jest-global-setup.js made (never one the caller gave), and forgets it: a process that
// runs Jest again (Stryker's test runner does, once per mutant) gets a new one.
const { rmSync } = require('node:fs');

module.exports = () => {
	const folder = process.env.VOICE_AGENT_TEST_USER_FOLDER;
	if (!folder) return;
	rmSync(folder, { recursive: true, force: true });
	if (process.env.N8N_USER_FOLDER === folder) delete process.env.N8N_USER_FOLDER;
	delete process.env.VOICE_AGENT_TEST_USER_FOLDER;
};
