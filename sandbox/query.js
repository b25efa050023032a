'use strict';

// Query parameters of the API: `id` of the single-item endpoints, `limit` and the optional filters of the
// lists.

const { invalid } = require('./checks');

const MIN_LIMIT = 1;
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;

/**
 * The `id` query parameter of GET /call, GET /agent, DELETE /agent.
 * @param {URLSearchParams} query
 * @returns {string}
 */
function requireQueryId(query) {
	const id = query.get('id');
	if (id === null || id === '') invalid('id is required: pass it as the query parameter ?id=');
	return id;
}

/**
 * `limit` of the lists: an integer from 1; above 100 serves 100 (docs/service.md, "Pagination").
 * @param {URLSearchParams} query
 * @returns {number}
 */
function parseLimit(query) {
	const raw = query.get('limit');
	if (raw === null) return DEFAULT_LIMIT;
	if (!/^-?\d+$/.test(raw) || Number(raw) < MIN_LIMIT)
		invalid(`limit must be an integer from ${MIN_LIMIT} to ${MAX_LIMIT}`);
	return Math.min(Number(raw), MAX_LIMIT);
}

/**
 * An optional query parameter; an empty value counts as absent (e.g. `?cursor=` is the first page).
 * @param {URLSearchParams} query
 * @param {string} name
 * @returns {string | undefined}
 */
function optionalParam(query, name) {
	return query.get(name) || undefined;
}

module.exports = { requireQueryId, parseLimit, optionalParam };
