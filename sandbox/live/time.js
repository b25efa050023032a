'use strict';

// Times as the live service writes them. Its rows come from a database that keeps microseconds, and Go
// encodes them with time.RFC3339Nano in UTC: `2024-05-16T21:32:38.200158Z`, trailing zeros trimmed, so 0 to
// 6 fractional digits (`…38.2Z`, `…38Z`). A time the row does not have yet is Go's zero time.Time. The
// sandbox keeps every live time as whole microseconds since the epoch.

/** Go's zero time.Time: what `started_at` and `ended_at` hold until the call has them. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

const US_PER_SECOND = 1_000_000;

/** The last reading of nowUs, so that readings within one millisecond never go backwards. */
let lastReading = { ms: Number.NaN, us: 0 };

/**
 * Now, in microseconds: the sandbox's clock (Date.now, which tests may set) plus a sub-millisecond part, so
 * times carry up to 6 fractional digits as the service's do. The part comes from another clock, so within
 * one millisecond it may fall: a call created at …001.900 would then be newer than a list read at
 * …001.100 and missing from it. Within a millisecond a reading is never less than the one before.
 * @returns {number}
 */
function nowUs() {
	const ms = Date.now();
	let us = ms * 1000 + Math.floor((performance.now() % 1) * 1000);
	if (ms === lastReading.ms && us < lastReading.us) us = lastReading.us;
	lastReading = { ms, us };
	return us;
}

/**
 * A time as Go's RFC3339Nano writes it in UTC.
 * @param {number} us microseconds since the epoch
 * @returns {string}
 */
function rfc3339(us) {
	const seconds = Math.floor(us / US_PER_SECOND);
	const fraction = String(us - seconds * US_PER_SECOND)
		.padStart(6, '0')
		.replace(/0+$/, '');
	const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
	return `${whole}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/**
 * The time cut to its second: what a list's `cursor` is (Go's time.RFC3339 format of the last item's
 * created_at drops the fraction).
 * @param {number} us
 * @returns {number}
 */
function wholeSecond(us) {
	return Math.floor(us / US_PER_SECOND) * US_PER_SECOND;
}

const TIME_TEXT =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A cursor read as the database reads a time: an RFC 3339 / ISO 8601 date, optionally with a time, a
 * fraction and a zone (no zone: UTC, the server's zone).
 * @param {string} text
 * @returns {number | undefined} microseconds since the epoch; undefined when it is not a time
 */
function parseTime(text) {
	const match = TIME_TEXT.exec(text);
	if (!match) return undefined;
	const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] =
		match;
	const ms = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second);
	const check = new Date(ms);
	const fields = [check.getUTCMonth() + 1, check.getUTCDate(), check.getUTCHours()];
	const given = [+month, +day, +hour];
	if (!Number.isFinite(ms) || fields.some((field, i) => field !== given[i])) return undefined;
	if (+minute > 59 || +second > 59) return undefined;
	const zoneMatch = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
	const offsetMinutes = zoneMatch
		? (zoneMatch[1] === '-' ? -1 : 1) * (+zoneMatch[2] * 60 + +(zoneMatch[3] ?? 0))
		: 0;
	const micros = Number(fraction.slice(0, 6).padEnd(6, '0'));
	return (ms - offsetMinutes * 60_000) * 1000 + micros;
}

module.exports = { ZERO_TIME, nowUs, rfc3339, wholeSecond, parseTime };
