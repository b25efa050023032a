/**
 * Reading URLs without regular expressions that backtrack: a value of any length is refused or
 * accepted in time linear in its length (a length bound first, then WHATWG's parser).
 */

/** The longest URL the nodes accept, as a Base URL or a webhook URL. */
export const MAX_URL_LENGTH = 2048;

/** Whitespace or control characters: a URL holding one is refused rather than repaired. */
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/** "http://" or "https://" and then a host (not a third slash). */
const HTTP_START = /^https?:\/\/[^/\\]/i;

/** An http(s) URL with a host, or undefined; at most MAX_URL_LENGTH characters. */
export function parseHttpUrl(text: string): URL | undefined {
	if (text.length > MAX_URL_LENGTH || SPACE_OR_CONTROL.test(text) || !HTTP_START.test(text)) {
		return undefined;
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return undefined;
	}
	if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
		return undefined;
	}
	return url;
}

/** A Base URL the nodes can use: without trailing slashes, and its origin (where the key may go). */
interface BaseUrl {
	baseUrl: string;
	origin: string;
}

/** The Base URL itself, or what is wrong with it as the end of a sentence starting "The Base URL". */
type BaseUrlCheck = { ok: true; value: BaseUrl } | { ok: false; problem: string };

export const BASE_URL_NOT_HTTP = 'is not an http:// or https:// address';

/** Text without its trailing slashes, in one pass (a `/\/+$/` pattern is quadratic on many slashes). */
function withoutTrailingSlashes(text: string): string {
	let end = text.length;
	while (end > 0 && text[end - 1] === '/') end--;
	return text.slice(0, end);
}

/**
 * The credential's Base URL, checked: an http(s) address without a user name or password (the key
 * would go with them to whoever parses the URL), a query or a fragment (the nodes append paths).
 */
export function checkBaseUrl(value: unknown): BaseUrlCheck {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text.length > MAX_URL_LENGTH) {
		return {
			ok: false,
			problem: `is longer than ${MAX_URL_LENGTH.toLocaleString('en-US')} characters`,
		};
	}
	const url = parseHttpUrl(text);
	if (!url) return { ok: false, problem: BASE_URL_NOT_HTTP };
	if (url.username !== '' || url.password !== '') {
		return {
			ok: false,
			problem:
				'must not contain a user name or password (user:password@): the API key goes in the API Key field',
		};
	}
	const queryAt = text.indexOf('?');
	const fragmentAt = text.indexOf('#');
	if (queryAt !== -1 && (fragmentAt === -1 || queryAt < fragmentAt)) {
		return { ok: false, problem: 'must not contain a query (?...): the nodes add their own' };
	}
	if (fragmentAt !== -1) return { ok: false, problem: 'must not contain a fragment (#...)' };
	return {
		ok: true,
		value: { baseUrl: `${url.origin}${withoutTrailingSlashes(url.pathname)}`, origin: url.origin },
	};
}

/**
 * Where a redirect pointed, for a message: its origin and path, without a query, a fragment or a
 * user name (they may hold secrets), at most 200 characters.
 */
export function describeLocation(location: unknown, requestUrl: string): string {
	const value = Array.isArray(location) ? location[0] : location;
	if (typeof value !== 'string' || value.trim() === '') return 'an address it did not name';
	let url: URL;
	try {
		url = new URL(value.trim().slice(0, MAX_URL_LENGTH), requestUrl);
	} catch {
		return 'an address that is no URL';
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		return 'an address that is no http(s) URL';
	const where = `${url.origin}${url.pathname}`;
	return where.length > 200 ? `${where.slice(0, 200)}…` : where;
}

/** axios's test for an absolute request URL: a scheme, or "//", at the very start. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

function originOf(text: string, base?: string): string | undefined {
	try {
		return new URL(text, base).origin;
	} catch {
		return undefined;
	}
}

/** Where a request of n8n's helpers goes: `url` (legacy: `uri`), relative to `baseURL` when it has one. */
export interface RequestTarget {
	url?: unknown;
	uri?: unknown;
	baseURL?: unknown;
}

/**
 * Whether a request goes to `origin` and nowhere else, read both as axios joins `baseURL` and a
 * relative `url` and as WHATWG resolves them; a request whose target cannot be read does not.
 */
export function goesOnlyTo(request: RequestTarget, origin: string): boolean {
	const raw = request.url ?? request.uri;
	const url = raw === undefined || raw === null ? '' : String(raw);
	const base =
		request.baseURL === undefined || request.baseURL === null ? undefined : String(request.baseURL);
	const origins: Array<string | undefined> = [];
	if (base === undefined) {
		origins.push(originOf(url));
	} else {
		const joined =
			url === '' || ABSOLUTE_URL.test(url)
				? url || base
				: `${withoutTrailingSlashes(base)}/${url.slice(leadingSlashes(url))}`;
		origins.push(originOf(joined), originOf(url, base));
	}
	return origins.every((each) => each !== undefined && each === origin);
}

function leadingSlashes(text: string): number {
	let count = 0;
	while (count < text.length && text[count] === '/') count++;
	return count;
}
