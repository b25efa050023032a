/**
 * Answers read by their content, never by their Content-Type: the live service sends its JSON as
 * `text/plain` with a trailing newline, and its errors as plain text. n8n's HTTP helper parses JSON text
 * whatever the header says in most versions; what it leaves as text (or as bytes) is parsed here.
 */

/** JSON text starts like this once trimmed: an object, an array, a string, a number, true/false/null. */
const LOOKS_LIKE_JSON = /^(?:[[{"\d-]|true$|false$|null$)/;

/** The answer as a value: JSON text parsed (trailing whitespace and newline allowed), anything else as it came. */
export function parsedBody(raw: unknown): unknown {
	const text =
		typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : undefined;
	if (text === undefined) return raw;
	const trimmed = text.trim();
	if (!LOOKS_LIKE_JSON.test(trimmed)) return text;
	try {
		return JSON.parse(trimmed) as unknown;
	} catch {
		return text;
	}
}

/** The longest text answer taken as the service's own message (a page of HTML or a stack trace is not). */
const MAX_MESSAGE_LENGTH = 300;

/**
 * A plain-text answer as a message: one short line of text that is not markup, trimmed; undefined for
 * anything else (empty, HTML, JSON, long).
 */
export function plainTextMessage(raw: unknown): string | undefined {
	const body = parsedBody(raw);
	if (typeof body !== 'string') return undefined;
	const text = body.trim();
	if (text === '' || text.length > MAX_MESSAGE_LENGTH || text.includes('\n')) return undefined;
	if (/^</.test(text)) return undefined;
	return text;
}
