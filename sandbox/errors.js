'use strict';

const http = require('node:http');

/**
 * An answer other than 2xx that a handler decides on. The server turns it into the service's error body
 * `{ error, message }`, with `error` the reason phrase of the status (e.g. "Bad Request").
 */
class ApiError extends Error {
	/**
	 * @param {number} status HTTP status code
	 * @param {string} message human-readable description, sent as `message`
	 * @param {Record<string, string>} [headers] extra response headers (e.g. Allow, Retry-After)
	 */
	constructor(status, message, headers = {}) {
		super(message);
		this.name = 'ApiError';
		this.status = status;
		this.headers = headers;
	}
}

/**
 * Short error name for a status code, as used in error bodies.
 * @param {number} status
 * @returns {string}
 */
function statusName(status) {
	return http.STATUS_CODES[status] ?? 'Error';
}

/**
 * The error body every failing endpoint answers with.
 * @param {number} status
 * @param {string} message
 * @returns {{ error: string, message: string }}
 */
function errorBody(status, message) {
	return { error: statusName(status), message };
}

module.exports = { ApiError, errorBody };
