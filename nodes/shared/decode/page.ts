import { isPlainObject } from '../validation';
import { parsedBody } from './body';

/** One page of a list as the service answers it: its items (not decoded yet) and the next page's cursor. */
export interface WirePage {
	items: unknown[];
	/** The cursor of the next page; undefined on the last page (missing, null, empty, or no items). */
	next?: string;
}

/**
 * A page of `GET /calls` or `GET /agents`: `{ num_items, cursor?, <itemsKey>: [...] }`, whatever its
 * Content-Type. Undefined when the answer has no such list (another server answers the Base URL).
 */
export function decodePage(raw: unknown, itemsKey: string): WirePage | undefined {
	const body = parsedBody(raw);
	if (!isPlainObject(body)) return undefined;
	const items = body[itemsKey];
	if (!Array.isArray(items)) return undefined;
	const cursor = body.cursor;
	const last = typeof cursor !== 'string' || cursor === '' || items.length === 0;
	return last ? { items } : { items, next: cursor };
}
