import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { voiceAgentApiRequest } from './request';
import type { VoiceAgentContext } from './types';

/** The service serves at most this many items per page (spec part 8). */
export const MAX_PAGE_SIZE = 100;

interface CursorPage {
	cursor?: string | null;
	[key: string]: unknown;
}

/**
 * Collects the items of a cursor-paginated list (GET /agents, GET /calls). With `max` it asks for
 * exactly what is still missing, otherwise for full pages; either way N items cost ceil(N/100)
 * requests. A cursor the service already gave is an error, never a loop.
 */
export async function paginateCursor<T>(
	context: VoiceAgentContext,
	path: string,
	itemsKey: string,
	qs: IDataObject = {},
	max?: number,
): Promise<T[]> {
	const results: T[] = [];
	const seenCursors = new Set<string>();
	let cursor: string | undefined;
	while (max === undefined || results.length < max) {
		const limit = max === undefined ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, max - results.length);
		const page = await voiceAgentApiRequest<CursorPage>(context, {
			method: 'GET',
			path,
			qs: cursor === undefined ? { ...qs, limit } : { ...qs, limit, cursor },
			idempotent: true,
		});
		const items = page[itemsKey];
		if (!Array.isArray(items)) {
			throw new NodeApiError(context.getNode(), page as JsonObject, {
				message: `The Voice Agent API answered GET ${path} without a "${itemsKey}" list`,
			});
		}
		for (const item of items as T[]) {
			if (max !== undefined && results.length >= max) break;
			results.push(item);
		}
		const next = page.cursor;
		if (typeof next !== 'string' || next === '' || items.length === 0) break;
		if (seenCursors.has(next)) {
			throw new NodeApiError(context.getNode(), { cursor: next } as JsonObject, {
				message: `The Voice Agent API repeated a pagination cursor for GET ${path}; stopped after ${results.length} items instead of looping`,
			});
		}
		seenCursors.add(next);
		cursor = next;
	}
	return results;
}
