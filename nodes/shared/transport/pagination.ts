import type { IDataObject } from 'n8n-workflow';

import { BASE_URL_HINT } from '../credential';
import { dataProblemError } from '../errors';

import { decodePage } from '../decode/page';
import { readSeam, type PagePosition } from './seam';
import { withServiceClock } from './serviceClock';
import { voiceAgentApiRequest } from './request';
import type { RequestOptions, VoiceAgentContext } from './types';

/**
 * The most items a page asks for: the documented service's maximum. (A page after a seam asks for the
 * seam second's items besides, `seam.ts`: only of a service whose cursors are times, the live one, which
 * has no maximum.)
 */
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

/** One page of a cursor-paginated list: the items not output before, and where the next page starts. */
export interface ListPage<T> {
	items: T[];
	/** Where the next page starts; undefined on the last page. */
	next?: PagePosition;
}

export type { PagePosition };

function listProblem(context: VoiceAgentContext, message: string) {
	return dataProblemError(context.getNode(), { message }, 200);
}

const repeatedCursor = (list: CursorList<unknown>, itemsSoFar: number) =>
	`The Voice Agent API repeated a pagination cursor for GET ${list.path}; stopped after ${itemsSoFar} items instead of looping`;

/**
 * One page of a cursor-paginated list: the first page (no position), or the page at a position an
 * earlier page gave, each item decoded; `want` items are asked for besides those the position says are
 * served again (`seam.ts`: the live service has no maximum page size, and only its cursors are times).
 * An answer without the list is an error (another server answers the Base URL), and so is an item that
 * is not one of the list's (no id): nothing downstream may skip it. `itemsSoFar` only words the errors.
 */
export async function cursorPage<T extends { id: string }>(
	context: VoiceAgentContext,
	list: CursorList<T>,
	at: PagePosition | undefined,
	want: number,
	options: RequestOptions = {},
	itemsSoFar = 0,
): Promise<ListPage<T>> {
	const position = at ?? {};
	const limit = want + (position.seen?.length ?? 0);
	const qs =
		position.cursor === undefined
			? { ...list.qs, limit }
			: { ...list.qs, limit, cursor: position.cursor };
	const clock = withServiceClock(options);
	const answer = await voiceAgentApiRequest<unknown>(
		context,
		{ method: 'GET', path: list.path, qs, idempotent: true },
		clock.options,
	);
	const page = decodePage(answer, list.itemsKey);
	if (!page) {
		const message = `GET ${list.path} answered without the "${list.itemsKey}" list: the credential's Base URL does not answer like the Voice Agent API; ${BASE_URL_HINT}`;
		throw listProblem(context, message);
	}
	const reading = { serviceNowMs: clock.serviceNowMs() };
	const items = page.items.map((raw, index) => {
		const item = list.decode(raw, reading);
		if (item !== undefined) return item;
		const message = `GET ${list.path} answered a list whose item ${index} is not a ${list.itemName} (no id): the list is not used`;
		throw listProblem(context, message);
	});
	const read = readSeam(position, items, page.next);
	if (read.problem === 'repeated') throw listProblem(context, repeatedCursor(list, itemsSoFar));
	if (read.problem === 'newer') {
		const message = `GET ${list.path} answered ${list.itemName}s created after its cursor (${String(position.cursor)}): stopped after ${itemsSoFar} items rather than output one twice`;
		throw listProblem(context, message);
	}
	return read.next === undefined ? { items: read.fresh } : { items: read.fresh, next: read.next };
}

/**
 * Stops a read that leads back to a position it read: an opaque cursor the service already gave, or a
 * cursor that is a time with as many ids of its second seen (the live service gives one cursor twice when
 * one second holds more items than a page, and each time serves new ones, so the ids seen grow).
 */
export class CursorLoopGuard {
	private readonly read = new Set<string>();

	/** Whether the position leads back to a page already read. */
	repeats(next: PagePosition): boolean {
		if (next.cursor === undefined) return false;
		const key = next.seen === undefined ? next.cursor : `${next.cursor} ${next.seen.length}`;
		if (this.read.has(key)) return true;
		this.read.add(key);
		return false;
	}
}

/**
 * The pages of a cursor-paginated list (GET /agents, GET /calls), newest first, one request each, each
 * item once (`seam.ts`). `pageSize` says how many items to ask for on each page (the last page of a
 * limited read asks for exactly what is missing). A service that leads back to a page it served is an
 * error, never a loop.
 */
export async function* cursorPages<T extends { id: string }>(
	context: VoiceAgentContext,
	list: CursorList<T>,
	pageSize: (itemsSoFar: number) => number = () => MAX_PAGE_SIZE,
	options: RequestOptions = {},
): AsyncGenerator<T[]> {
	const guard = new CursorLoopGuard();
	let position: PagePosition | undefined;
	let itemsSoFar = 0;
	for (;;) {
		const page = await cursorPage<T>(
			context,
			list,
			position,
			pageSize(itemsSoFar),
			options,
			itemsSoFar,
		);
		itemsSoFar += page.items.length;
		yield page.items;
		if (page.next === undefined) return;
		if (guard.repeats(page.next)) throw listProblem(context, repeatedCursor(list, itemsSoFar));
		position = page.next;
	}
}

/**
 * Collects a list's items: all of them, or at most `max`. N items cost ceil(N/100) requests, and
 * items are appended page by page, never copied.
 */
export async function paginateCursor<T extends { id: string }>(
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
