// Removes the user folder jest-global-setup.js made (never one the caller gave).
const { rmSync } = require('node:fs');

module.exports = () => {
	const folder = process.env.VOICE_AGENT_TEST_USER_FOLDER;
	if (folder) rmSync(folder, { recursive: true, force: true });
};
