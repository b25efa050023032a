import type { IDataObject } from 'n8n-workflow';

import { BASE_URL_HINT } from '../credential';
import { dataProblemError } from '../errors';

import { decodePage } from '../decode/page';
import { withServiceClock } from './serviceClock';
import { voiceAgentApiRequest } from './request';
import type { RequestOptions, VoiceAgentContext } from './types';

/** The service serves at most this many items per page. */
export const MAX_PAGE_SIZE = 100;

/** How one item of a list is read: undefined when the service's item is not one. */
export type ItemDecoder<T> = (raw: unknown, reading: { serviceNowMs?: number }) => T | undefined;

export interface CursorList<T> {
	/** e.g. '/calls' */
	path: string;
	/** The key of the page's items, e.g. 'calls'. */
	itemsKey: string;
	qs?: IDataObject;
	/** The resource's decoder (`api/decode/`): the wire's item as the package's model. */
	decode: ItemDecoder<T>;
	/** What the list's items are called, for errors: e.g. 'call'. */
	itemName: string;
}

/** One page of a cursor-paginated list, and the cursor of the next page (none on the last page). */
export interface ListPage<T> {
	items: T[];
	next?: string;
}

/**
 * One page of a cursor-paginated list: the first page without a cursor, or the page a cursor the service
 * gave points at, each item decoded. An answer without the list is an error (another server answers the
 * Base URL), and so is an item that is not one of the list's (no id): nothing downstream may skip it.
 */
export async function cursorPage<T>(
	context: VoiceAgentContext,
	list: CursorList<T>,
	cursor: string | undefined,
	limit: number,
	options: RequestOptions = {},
): Promise<ListPage<T>> {
	const qs = cursor === undefined ? { ...list.qs, limit } : { ...list.qs, limit, cursor };
	const clock = withServiceClock(options);
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ method: 'GET', path: list.path, qs, idempotent: true },
		clock.options,
	);
	const page = decodePage(answer, list.itemsKey);
	if (!page) {
		const message = `GET ${list.path} answered without the "${list.itemsKey}" list: the credential's Base URL does not answer like the Voice Agent API; ${BASE_URL_HINT}`;
		throw dataProblemError(context.getNode(), { message }, 200);
	}
	const reading = { serviceNowMs: clock.serviceNowMs() };
	const items = page.items.map((raw, index) => {
		const item = list.decode(raw, reading);
		if (item !== undefined) return item;
		const message = `GET ${list.path} answered a list whose item ${index} is not a ${list.itemName} (no id): the list is not used`;
		throw dataProblemError(context.getNode(), { message }, 200);
	});
	return page.next === undefined ? { items } : { items, next: page.next };
}

/**
 * The pages of a cursor-paginated list (GET /agents, GET /calls), newest first, one request each.
 * `pageSize` says how many items to ask for on each page (the last page of a limited read asks for
 * exactly what is missing). A cursor the service already gave is an error, never a loop.
 */
export async function* cursorPages<T>(
	context: VoiceAgentContext,
	list: CursorList<T>,
	pageSize: (itemsSoFar: number) => number = () => MAX_PAGE_SIZE,
	options: RequestOptions = {},
): AsyncGenerator<T[]> {
	const seenCursors = new Set<string>();
	let cursor: string | undefined;
	let itemsSoFar = 0;
	for (;;) {
		const page = await cursorPage<T>(context, list, cursor, pageSize(itemsSoFar), options);
		itemsSoFar += page.items.length;
		yield page.items;
		if (page.next === undefined) return;
		if (seenCursors.has(page.next)) {
			const message = `The Voice Agent API repeated a pagination cursor for GET ${list.path}; stopped after ${itemsSoFar} items instead of looping`;
			throw dataProblemError(context.getNode(), { message }, 200);
		}
		seenCursors.add(page.next);
		cursor = page.next;
	}
}

/**
 * Collects a list's items: all of them, or at most `max`. N items cost ceil(N/100) requests, and
 * items are appended page by page, never copied.
 */
export async function paginateCursor<T>(
	context: VoiceAgentContext,
	list: CursorList<T>,
	max?: number,
	options: RequestOptions = {},
): Promise<T[]> {
	const results: T[] = [];
	const pageSize = (soFar: number) =>
		max === undefined ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, max - soFar);
	for await (const items of cursorPages<T>(context, list, pageSize, options)) {
		for (const item of items) {
			if (max !== undefined && results.length >= max) break;
			results.push(item);
		}
		if (max !== undefined && results.length >= max) break;
	}
	return results;
}
