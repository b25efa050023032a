import { isPlainObject } from '../validation';
import type { TranscriptEntry } from '../types';

/*
 * A transcript as the nodes output it: turns of `{ speaker, text }`, speaker `agent` or `customer`. The
 * documented service writes them so; the live service writes chat messages `{ role, content }`, whose
 * first entry is the `system` message: the agent's whole prompt and the call's context, not part of the
 * conversation. System messages are kept apart (`systemMessagesOf`), never among the turns.
 */

/** The chat roles as the documented speakers. */
const SPEAKER_OF_ROLE: Readonly<Record<string, string>> = { assistant: 'agent', user: 'customer' };

/** A transcript's turns, and its system messages kept apart. */
export interface DecodedTranscript {
	turns: TranscriptEntry[];
	system: string[];
}

function textOf(value: unknown): string {
	if (typeof value === 'string') return value;
	if (value === null || value === undefined) return '';
	// A chat message's content may be a list of parts ({ type: 'text', text }).
	if (Array.isArray(value))
		return value
			.map((part) => (isPlainObject(part) && typeof part.text === 'string' ? part.text : ''))
			.join('');
	return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** The text of a system message, when the entry is one (`{ "role": "system", "content": ... }`). */
function systemText(entry: unknown): string | undefined {
	if (!isPlainObject(entry) || typeof entry.role !== 'string') return undefined;
	return entry.role.trim().toLowerCase() === 'system' ? textOf(entry.content) : undefined;
}

/** One entry as a turn, or undefined when it is not an entry of either shape. */
function decodeTurn(entry: unknown): TranscriptEntry | undefined {
	if (!isPlainObject(entry)) return undefined;
	const { role, content, ...rest } = entry;
	if (typeof entry.speaker === 'string' || (role === undefined && 'text' in entry)) {
		return { ...entry, speaker: String(entry.speaker ?? ''), text: textOf(entry.text) };
	}
	if (typeof role !== 'string') return undefined;
	const name = role.trim().toLowerCase();
	return { ...rest, speaker: SPEAKER_OF_ROLE[name] ?? name, text: textOf(content) };
}

/**
 * The transcript of an answer: undefined when the answer has none (`null`, not saved yet), its turns and
 * system messages otherwise. An entry of neither shape is left out.
 */
export function decodeTranscript(raw: unknown): DecodedTranscript | undefined {
	if (!Array.isArray(raw)) return undefined;
	const decoded: DecodedTranscript = { turns: [], system: [] };
	for (const entry of raw) {
		const system = systemText(entry);
		if (system !== undefined) {
			decoded.system.push(system);
			continue;
		}
		const turn = decodeTurn(entry);
		if (turn) decoded.turns.push(turn);
	}
	return decoded;
}
