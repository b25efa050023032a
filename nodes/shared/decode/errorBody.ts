import { isPlainObject } from '../validation';
import { parsedBody, plainTextMessage } from './body';

/**
 * What an error answer says, from the documented JSON body `{ "error", "message" }` or the live service's
 * plain text (`Call not found\n`). `fromService`: the body is the service's own, so a 404 speaks of the
 * resource; a missing route (Go's `404 page not found`), a proxy's HTML page or nothing at all is not.
 */
export interface ErrorAnswer {
	message?: string;
	fromService: boolean;
}

/** The text of a server that has no such route at all, as Go's HTTP server and others write it. */
const NO_ROUTE = /^(?:404 )?(?:page )?not found\.?$/i;

export function decodeErrorAnswer(raw: unknown): ErrorAnswer {
	const body = parsedBody(raw);
	if (isPlainObject(body)) {
		const fromService = typeof body.error === 'string' && typeof body.message === 'string';
		const message = typeof body.message === 'string' ? body.message.trim() : '';
		return { message: message === '' ? undefined : message, fromService };
	}
	const text = plainTextMessage(body);
	if (text === undefined) return { fromService: false };
	return { message: text, fromService: !NO_ROUTE.test(text) };
}
