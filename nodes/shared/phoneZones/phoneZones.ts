/**
 * The time zones a phone number may be in, from libphonenumber's prefix→time-zone map (generated into
 * `phoneZones.data.ts` by `scripts/phone-zones.mjs`; the source, its version and its licence are in
 * `scripts/data/libphonenumber/`). A prefix is the country code and the leading digits of the national number,
 * so the longest prefix of the E.164 digits that the map lists is the most precise answer it has.
 */
import { countryWideRange } from './countryWideRanges';
import { prefixGroups, zoneNames } from './phoneZones.data';

/** What libphonenumber answers for a number it cannot place; never a zone to compute with. */
const UNKNOWN_ZONE = 'Etc/Unknown';

interface PrefixTable {
	zonesByPrefix: Map<string, readonly string[]>;
	longestPrefix: number;
}

let table: PrefixTable | undefined;

/** The table is built on the first lookup, once per process: about 3,300 prefixes sharing 317 zone lists. */
function prefixTable(): PrefixTable {
	if (table) return table;
	const names = zoneNames.split('|');
	const zonesByPrefix = new Map<string, readonly string[]>();
	let longestPrefix = 0;
	for (const group of prefixGroups.split(';')) {
		const [indexes, prefixes] = group.split('=');
		const zones = Object.freeze(
			indexes
				.split('.')
				.map((index) => names[parseInt(index, 36)])
				.filter((zone) => zone !== UNKNOWN_ZONE),
		);
		for (const prefix of prefixes.split(',')) {
			zonesByPrefix.set(prefix, zones);
			longestPrefix = Math.max(longestPrefix, prefix.length);
		}
	}
	table = { zonesByPrefix, longestPrefix };
	return table;
}

/** Spaces, dashes, dots and brackets people write inside a number; they carry no digits. */
const SEPARATORS = /[\s\-.()]/g;

/**
 * The IANA zones of an E.164 number (`+` and digits; separators such as spaces are ignored), or undefined when
 * the number is not E.164, no prefix of it is in the map (e.g. +999), or the map knows no zone for it (non-
 * geographic numbers such as +800). Several zones when the prefix spans them (e.g. +7 without more digits the
 * map knows): a caller must respect every one. A number in a range not allocated by place (an Australian
 * mobile, a Russian toll-free number, a Chilean fixed line or mobile) gets every zone of its calling code, the
 * prefix's own first; in a region beside its calling code's main one, its region's zones (a Canadian UAN:
 * Canada's, not the US area code's).
 */
export function zonesOfNumber(e164: string): string[] | undefined {
	if (typeof e164 !== 'string') return undefined;
	const number = e164.replace(SEPARATORS, '');
	if (!/^\+\d{1,15}$/.test(number)) return undefined;
	const digits = number.slice(1);
	const { zonesByPrefix, longestPrefix } = prefixTable();
	let zones: readonly string[] = [];
	for (let length = Math.min(digits.length, longestPrefix); length > 0; length--) {
		const found = zonesByPrefix.get(digits.slice(0, length));
		if (found) {
			zones = found;
			break;
		}
	}
	const countryWide = countryWideRange(digits);
	if (countryWide !== undefined) {
		const { callingCode, regionZones } = countryWide;
		// A region beside its calling code's main one: the prefix's zone is another region's (the US 310 of a
		// Canadian UAN), or the whole calling code's (+1 alone); the number is in its region.
		if (regionZones.length > 0) return [...regionZones];
		const countryZones = zonesByPrefix.get(callingCode) ?? [];
		zones = [...zones, ...countryZones.filter((zone) => !zones.includes(zone))];
	}
	return zones.length > 0 ? [...zones] : undefined;
}
