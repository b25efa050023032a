// How the sandbox writes an answer another way, for the contract variants (variants.js): times in another
// form, a live call's status in another spelling, an odd 200 in place of a call or a page, a proxy's page.
const { isObject } = require('./checks');

/** @typedef {import('./variants').VariantSettings} VariantSettings */
/** @typedef {import('./variants').OddAnswer} OddAnswer */

const TIME_FIELDS = new Set(['created_at', 'updated_at', 'ended_at', 'timestamp']);

/**
 * One ISO time written the variant's way.
 * @param {string} iso an ISO time as the sandbox stores it (UTC, milliseconds, Z)
 * @param {VariantSettings['timestamps']} form
 * @returns {string}
 */
function restamp(iso, form) {
	const ms = Date.parse(iso);
	if (!Number.isFinite(ms)) return iso;
	switch (form) {
		case 'utc_offset':
			return iso.replace(/Z$/, '+00:00');
		case 'whole_seconds':
			return iso.replace(/\.\d{3}Z$/, 'Z');
		case 'local_offset':
			return `${new Date(ms - 5 * 3_600_000).toISOString().replace(/Z$/, '')}-05:00`;
		case 'no_zone':
			return iso.replace(/Z$/, '');
		case 'local_no_zone':
			return new Date(ms - 5 * 3_600_000).toISOString().replace(/Z$/, '');
		default:
			return iso;
	}
}

/**
 * A copy of an answer body with every time field written the variant's way (objects and arrays, as deep as
 * the API's bodies go).
 * @param {unknown} value
 * @param {VariantSettings['timestamps']} form
 * @returns {unknown}
 */
function restampBody(value, form) {
	if (Array.isArray(value)) return value.map((entry) => restampBody(entry, form));
	if (!isObject(value)) return value;
	/** @type {Record<string, unknown>} */
	const copy = {};
	for (const [key, field] of Object.entries(value)) {
		copy[key] =
			TIME_FIELDS.has(key) && typeof field === 'string'
				? restamp(field, form)
				: restampBody(field, form);
	}
	return copy;
}

/**
 * A copy of an answer body with each `"status": "in_progress"` written as `live`.
 * @param {unknown} value
 * @param {string} live
 * @returns {unknown}
 */
function relabelLive(value, live) {
	if (Array.isArray(value)) return value.map((entry) => relabelLive(entry, live));
	if (!isObject(value)) return value;
	/** @type {Record<string, unknown>} */
	const copy = {};
	for (const [key, field] of Object.entries(value))
		copy[key] = key === 'status' && field === 'in_progress' ? live : relabelLive(field, live);
	return copy;
}

/**
 * The page a proxy in front of the service answers a 5xx with.
 * @param {number} status
 * @returns {string}
 */
function proxyErrorPage(status) {
	const title = status === 503 ? 'Service Temporarily Unavailable' : `${status} Bad Gateway`;
	return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/**
 * One odd 200 answer in place of a call (GET /call) or a page of calls (GET /calls).
 * @param {'call' | 'page'} kind
 * @param {Exclude<OddAnswer, 'normal'>} odd
 * @param {unknown} body the normal answer
 * @returns {import('./api').Reply}
 */
function oddReply(kind, odd, body) {
	const object = /** @type {Record<string, unknown>} */ (isObject(body) ? body : {});
	switch (odd) {
		case 'null':
			return { status: 200, body: null };
		case 'array':
			return { status: 200, body: kind === 'call' ? [object] : (object.calls ?? []) };
		case 'html':
			return {
				status: 200,
				body: null,
				html: '<!DOCTYPE html>\r\n<html><head><title>Sign in</title></head><body><h1>Sign in</h1></body></html>\r\n',
			};
		case 'truncated': {
			const text = JSON.stringify(object);
			return { status: 200, body: null, json: text.slice(0, Math.floor(text.length / 2)) };
		}
		case 'missing_fields': {
			const { id: _id, status: _status, calls: _calls, ...rest } = object;
			return { status: 200, body: kind === 'call' ? rest : { ...rest, num_items: 0 } };
		}
		default:
			return {
				status: 200,
				body:
					kind === 'call'
						? { ...object, id: 12345, status: { value: object.status } }
						: { ...object, calls: { items: object.calls } },
			};
	}
}

module.exports = { oddReply, proxyErrorPage, relabelLive, restamp, restampBody };
