/*
 * The seam between two pages of a list whose cursor is a time. The live service's cursor is the page's
 * last item's `created_at` cut to the second, and its next page holds only items created before that
 * second: items created earlier within it are never served (250 calls placed 30 a second: a Return All
 * read 219). So when a cursor reads as a time, the next page is asked from the second after the last
 * item's: the whole seam second is served again, and its items already output are dropped by id. Only the
 * ids of that one second are kept, whatever the length of the list. A cursor that does not read as a time
 * (the documented service's, opaque) is used as the service gave it.
 */

/** Where a page of a list starts. */
export interface PagePosition {
	/** The cursor to send; none: the first page. */
	cursor?: string;
	/**
	 * Ids of the items already output that a page at `cursor` serves again (the seam second's), to be
	 * dropped; present only when `cursor` is a time the nodes made from the service's.
	 */
	seen?: string[];
}

/** A page read at a position: its items not output before, and where the next page starts. */
export interface SeamRead<T> {
	fresh: T[];
	/** Where the next page starts; undefined on the last page. */
	next?: PagePosition;
	/** Why the answer cannot be used without outputting an item twice or looping. */
	problem?: 'repeated' | 'newer';
}

/** RFC 3339 date and time to the second; a fraction and a zone may follow (none: UTC, as the service reads it). */
const TIME =
	/^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

interface Second {
	/** The start of the second it names, in ms since the epoch (the fraction cut off). */
	ms: number;
	/** Whether it was written with a zone: a cursor made from it is written the same way. */
	zoned: boolean;
}

/** The whole second a time names, or undefined when the value is not such a time. */
export function secondOf(value: unknown): Second | undefined {
	if (typeof value !== 'string') return undefined;
	const match = TIME.exec(value.trim());
	if (!match) return undefined;
	const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
	const date = new Date(0);
	date.setUTCFullYear(year, month - 1, day);
	date.setUTCHours(hour, minute, second);
	const valid =
		date.getUTCFullYear() === year &&
		date.getUTCMonth() === month - 1 &&
		date.getUTCDate() === day &&
		hour <= 23 &&
		minute <= 59 &&
		second <= 59;
	if (!valid) return undefined;
	const zone = match[7];
	return { ms: date.getTime() - offsetMs(zone), zoned: zone !== undefined };
}

function offsetMs(zone: string | undefined): number {
	if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
	const sign = zone.startsWith('-') ? -1 : 1;
	const digits = zone.slice(1).replace(':', '');
	return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
}

/** A cursor for the second starting at `ms`, as the service writes its own: `2024-05-16T21:32:39Z`. */
export function cursorAt(ms: number, zoned: boolean): string {
	const text = new Date(ms).toISOString().slice(0, 19);
	return zoned ? `${text}Z` : text;
}

const createdSecond = (item: object) => secondOf((item as { created_at?: unknown }).created_at)?.ms;

/**
 * A page read at `at`: the items to output (those not output before), and where the next page starts.
 * For a cursor that reads as a time, the next page starts at the second after the last item's (the
 * service's cursor's when that item's time cannot be read or is older than the cursor), and carries the
 * ids of the items of that second this page and the ones before it served: an item whose time cannot be
 * read counts as one of them. Fails (`problem`) rather than output an item twice: a page asked from a second that serves items
 * of that second or later (the service and the nodes read the times differently), and a page that
 * serves nothing new but points at itself again (a loop, e.g. a service that serves fewer items than asked).
 */
export function readSeam<T extends { id: string }>(
	at: PagePosition,
	items: readonly T[],
	cursor: string | undefined,
): SeamRead<T> {
	const seen = new Set(at.seen ?? []);
	const fresh = items.filter((item) => !seen.has(item.id));
	const asked = at.seen === undefined ? undefined : secondOf(at.cursor);
	if (asked && items.some((item) => (createdSecond(item) ?? -Infinity) >= asked.ms))
		return { fresh, problem: 'newer' };
	const given = cursor === undefined || items.length === 0 ? undefined : secondOf(cursor);
	if (cursor === undefined || !given)
		return cursor === undefined ? { fresh } : { fresh, next: { cursor } };
	// The service cuts its last item's time: a last item read as older than the cursor says the nodes do not
	// read its times as it does (a zone), so the cursor's second is read again and every id of the page kept.
	const lastSecond = createdSecond(items[items.length - 1]);
	const trusted = lastSecond !== undefined && lastSecond >= given.ms;
	const seamMs = trusted ? lastSecond : given.ms;
	const next = cursorAt(seamMs + 1000, given.zoned);
	const again = new Set(next === at.cursor ? seen : []);
	for (const item of items) {
		const second = createdSecond(item);
		if (!trusted || second === undefined || second === seamMs) again.add(item.id);
	}
	if (fresh.length === 0) return { fresh, problem: 'repeated' };
	return { fresh, next: { cursor: next, seen: [...again] } };
}

/**
 * A position as one text (the editor's list search passes its pages on as a token): the cursor itself
 * when nothing was seen, else JSON.
 */
export function positionToken(position: PagePosition | undefined): string | undefined {
	if (!position) return undefined;
	if (!position.seen) return position.cursor;
	return JSON.stringify({ cursor: position.cursor, seen: position.seen });
}

/** The position a token names: a cursor as it is, or the JSON `positionToken` wrote. */
export function positionOfToken(token: string | undefined): PagePosition {
	if (!token) return {};
	if (token.startsWith('{')) {
		try {
			const { cursor, seen } = JSON.parse(token) as PagePosition;
			const ids = Array.isArray(seen) && seen.every((id) => typeof id === 'string');
			if (typeof cursor === 'string' && ids) return { cursor, seen };
		} catch {
			// Not a token of ours: the service's own cursor.
		}
	}
	return { cursor: token };
}
