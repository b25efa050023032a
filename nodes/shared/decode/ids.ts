/**
 * Ids as the service writes them: text in its documentation, JSON numbers in the live service's own answers
 * (`"id": 5001`). The nodes compare and output them as text; where the service wants one back (POST
 * /call/context), it gets it in the type it used.
 */

/** The id as text: a non-empty string, or a whole number; undefined for anything else. */
export function idText(value: unknown): string | undefined {
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
	return undefined;
}

/** What the service wrote for an id, by the decoded object that carries it. */
const wireIds = new WeakMap<object, string | number>();

/** Notes the service's own value of the decoded object's id. */
export function keepWireId(decoded: object, wire: string | number): void {
	wireIds.set(decoded, wire);
}

/**
 * The id to send back for a decoded object, in the type the service used for it; an id the node only
 * knows as text (typed by a user) goes as text.
 */
export function wireIdOf(decoded: { id: string }): string | number {
	return wireIds.get(decoded) ?? decoded.id;
}
