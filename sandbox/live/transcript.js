'use strict';

/** @typedef {import('./types').ChatMessage} ChatMessage */

/**
 * The conversation of a live call as the service saves it when the call ends: chat messages. The first is
 * the system message (the agent's prompt, then "Extra Context" and the context the call started with); an
 * assistant message with the initial message follows even when the user spoke first; the user may speak
 * twice in a row and an assistant message may be empty. Every later context appears as an update, so the
 * transcript quotes every context the call had, the latest last.
 * @param {{ systemPrompt: string, initialMessage: string, contexts: string[], userSpeaksFirst: boolean }} call
 * @returns {ChatMessage[]}
 */
function liveTranscript({ systemPrompt, initialMessage, contexts, userSpeaksFirst }) {
	const [first = '', ...updates] = contexts;
	/** @type {ChatMessage[]} */
	const messages = [{ role: 'system', content: `${systemPrompt}\n\nExtra Context:\n${first}` }];
	/** @param {string} content */
	const assistant = (content) => messages.push({ role: 'assistant', content });
	/** @param {string} content */
	const user = (content) => messages.push({ role: 'user', content });

	assistant(initialMessage);
	if (userSpeaksFirst) user('Hello, who is calling?');
	user('Hello?');
	assistant('');
	if (first !== '') {
		assistant(`I am calling about this: ${first}`);
		user('Okay, go on.');
	}
	for (const update of updates.filter((context) => context !== '')) {
		assistant(`I have an update for you: ${update}`);
		user('Thanks for letting me know.');
	}
	assistant('Is there anything else I can help you with?');
	user('No, that is all.');
	user('Thank you.');
	assistant('You are welcome. Goodbye!');
	return messages;
}

module.exports = { liveTranscript };
