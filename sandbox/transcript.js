'use strict';

/** @typedef {import('./types').TranscriptEntry} TranscriptEntry */

/**
 * The simulated conversation of a completed call. It quotes every context the call had, oldest first, so
 * a test can see that a context update reached the call.
 * @param {{ agentName: string, initialMessage: string, contexts: string[], userSpeaksFirst: boolean }} call
 * @returns {TranscriptEntry[]}
 */
function buildTranscript({ agentName, initialMessage, contexts, userSpeaksFirst }) {
	/** @type {TranscriptEntry[]} */
	const lines = [];
	/** @param {string} text */
	const agent = (text) => lines.push({ speaker: 'agent', text });
	/** @param {string} text */
	const customer = (text) => lines.push({ speaker: 'customer', text });

	if (userSpeaksFirst) customer('Hello, who is calling?');
	agent(initialMessage || `Hello, this is ${agentName}.`);
	if (!userSpeaksFirst) customer('Hi. What is this about?');
	const [first, ...updates] = contexts.filter((context) => context !== '');
	if (first !== undefined) {
		agent(`I am calling about this: ${first}`);
		customer('Okay, go on.');
	}
	for (const update of updates) {
		agent(`I have an update for you: ${update}`);
		customer('Thanks for letting me know.');
	}
	agent('Is there anything else I can help you with?');
	customer('No, that is all. Thank you.');
	agent('You are welcome. Goodbye!');
	return lines;
}

module.exports = { buildTranscript };
