/**
 * The latest instant a timestamp of the service (`created_at`) can name, in ms since the epoch, or NaN when it
 * cannot be read. The guards that count back from the service's time (Max Calls per Hour, the skip window)
 * read it with this, so a timestamp the contract leaves open never makes a call look older than it is:
 *
 * - with a zone (`Z`, `+01:00`, `-0500`), the instant it names;
 * - without one (`2026-11-27T10:15:30`), the instant that wall-clock time is at UTC−12:00, the westernmost
 *   offset in use: the latest it can be in any zone, so the hour and the skip window never shrink, whatever
 *   zone the service meant (JavaScript's `Date.parse` would read it in n8n's own zone: east of UTC, hours
 *   early);
 * - to the end of what it writes: a time without seconds is the end of its minute, a date alone the end of
 *   its day.
 *
 * Anything else (no ISO 8601 date and time) is NaN: the callers count it as recent, never as old.
 */
export function latestInstantOf(timestamp: unknown): number {
	if (typeof timestamp !== 'string') return NaN;
	const match = ISO_8601.exec(timestamp.trim());
	if (!match) return NaN;
	const [, year, month, day, hour, minute, second, fraction, zone] = match;
	const startMs = Date.UTC(
		Number(year),
		Number(month) - 1,
		Number(day),
		Number(hour ?? 0),
		Number(minute ?? 0),
		Number(second ?? 0),
	);
	const check = new Date(startMs);
	const inRange = Number(hour ?? 0) <= 23 && Number(minute ?? 0) <= 59 && Number(second ?? 0) <= 59;
	if (!inRange || check.getUTCMonth() !== Number(month) - 1 || check.getUTCDate() !== Number(day))
		return NaN;
	const fractionMs = fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000;
	const precisionMs =
		hour === undefined
			? DAY_MS
			: second === undefined
				? MINUTE_MS
				: fraction === undefined
					? 1000
					: 1;
	const endMs = startMs + Math.floor(fractionMs) + precisionMs - 1;
	return endMs - offsetMs(zone);
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** UTC−12:00: no place keeps a clock further west, so a time without a zone is at the latest there. */
const WESTERNMOST_OFFSET_MS = -12 * 3_600_000;

/** `YYYY-MM-DD`, optionally `THH:MM`, `:SS`, `.fraction`, and a zone (`Z`, `±HH`, `±HH:MM`, `±HHMM`). */
const ISO_8601 =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** The offset a zone designator names; none: the westernmost (see above). */
function offsetMs(zone: string | undefined): number {
	if (zone === undefined) return WESTERNMOST_OFFSET_MS;
	if (zone.toUpperCase() === 'Z') return 0;
	const sign = zone.startsWith('-') ? -1 : 1;
	const digits = zone.slice(1).replace(':', '');
	return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * MINUTE_MS;
}

/**
 * Whether a timestamp of the service names no time at all: missing, empty, or a zero time such as Go's
 * `0001-01-01T00:00:00Z`, which the live service writes for a call that has not ended (or not started).
 */
export function isNoTime(timestamp: unknown): boolean {
	if (timestamp === undefined || timestamp === null) return true;
	if (typeof timestamp !== 'string') return false;
	const text = timestamp.trim();
	return (
		text === '' ||
		/^0{0,3}1-01-01(?:[T ]00:00(?::00(?:[.,]0+)?)?)?(?:Z|[+-]00(?::?00)?)?$/i.test(text)
	);
}
