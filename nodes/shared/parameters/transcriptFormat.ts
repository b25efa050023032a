import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { systemMessagesOf } from '../decode/call';
import { InputValidator } from '../validation';

/**
 * How a call's transcript is output: `entries` as the service gives it (`transcript`, a list of turns),
 * `text` as one string (`transcript_text`, a line per turn) for a spreadsheet cell or a CRM field, or
 * both. Each field keeps one type whatever the choice, so expressions downstream never change meaning.
 */
export type TranscriptFormat = 'entries' | 'text' | 'both';

const LABEL = 'Transcript Format';
const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = ['entries', 'text', 'both'];

/** The "Transcript Format" option, as every node that outputs whole calls offers it. */
export function transcriptFormatOption(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: LABEL,
		name: 'transcriptFormat',
		type: 'options',
		options: [
			{
				name: 'Both',
				value: 'both',
				description: 'The list of turns as "transcript" and the text as "transcript_text"',
			},
			{
				name: 'Entries',
				value: 'entries',
				description: 'A list of turns as "transcript", each with "speaker" and "text"',
			},
			{
				name: 'Text',
				value: 'text',
				description:
					'One text as "transcript_text", a line per turn ("Agent: …", "Customer: …"), for a spreadsheet cell or a CRM field',
			},
		],
		default: 'entries',
		description: 'How to output the transcript of each call',
		...overrides,
	};
}

function speakerLabel(speaker: unknown): string {
	const name = typeof speaker === 'string' ? speaker.trim() : '';
	if (name === '') return 'Unknown';
	return name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');
}

/** A transcript as text: one line per turn, "Agent: …" or "Customer: …"; "" when there is none. */
export function transcriptText(transcript: unknown): string {
	if (!Array.isArray(transcript)) return '';
	return transcript
		.filter((entry): entry is IDataObject => typeof entry === 'object' && entry !== null)
		.map(
			(entry) =>
				`${speakerLabel(entry.speaker)}: ${typeof entry.text === 'string' ? entry.text : ''}`,
		)
		.join('\n');
}

/**
 * The "Include System Messages" option: the live service saves the agent's whole prompt and the call's
 * context as the transcript's first message. It is not part of the conversation: never in the turns or the
 * text, and output (as `system_messages`) only when asked for.
 */
export const systemMessagesOption: INodeProperties = {
	displayName: 'Include System Messages',
	name: 'includeSystemMessages',
	type: 'boolean',
	default: false,
	description:
		'Whether to also output the instructions the agent was given for the call (its prompt and the call\'s context) as "system_messages", where the service saves them with the transcript. They are never part of the transcript itself.',
};

/** Whether the item asked for the system messages (the option of the same name). */
export function readSystemMessages(options: IDataObject): boolean {
	return options.includeSystemMessages === true;
}

/**
 * The call with its transcript in the chosen format, and its system messages when asked for (read from
 * `decoded`, the call as the decoder made it, when `call` is a copy); the call itself is left as it is.
 */
export function withTranscriptFormat<T extends IDataObject>(
	call: T,
	format: TranscriptFormat,
	{ systemMessages = false, decoded = call }: { systemMessages?: boolean; decoded?: object } = {},
): IDataObject {
	const withSystem = systemMessages
		? { ...call, system_messages: systemMessagesOf(decoded) }
		: call;
	if (format === 'entries') return withSystem;
	const text = transcriptText(call.transcript);
	const formatted: IDataObject = { ...withSystem, transcript_text: text };
	if (format === 'text') delete formatted.transcript;
	return formatted;
}

/** The "Transcript Format" a node was given ("entries" when not set); anything else is an error. */
export function readTranscriptFormat(
	node: INode,
	value: unknown,
	itemIndex?: number,
): TranscriptFormat {
	if (value === undefined || value === null || value === '') return 'entries';
	return new InputValidator(node, itemIndex).oneOf(value, LABEL, TRANSCRIPT_FORMATS);
}
