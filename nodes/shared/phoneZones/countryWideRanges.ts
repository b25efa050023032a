/**
 * Numbers not allocated by place: mobiles outside area-code numbering, toll-free, shared-cost, VoIP, personal,
 * pager, UAN, premium and voicemail numbers. One may be anywhere its country is, whatever zone the prefix map
 * gives its range (it gives the whole +61 4 mobile range Australia/Sydney). The patterns are libphonenumber's
 * (generated into `countryWideRanges.data.ts` by `scripts/phone-zones.mjs`), for the calling codes whose zones
 * keep different clocks (elsewhere the answer would not change a window): the main region of each, and the
 * other regions whose ranges start with a prefix the map gives another region's zone (Canada's UAN 310…).
 */
import { countryWideRanges } from './countryWideRanges.data';

interface RegionRanges {
	leadingDigits?: RegExp;
	/** Empty for the calling code's main region: its numbers get every zone of the calling code. */
	zones: readonly string[];
	countryWide?: RegExp;
	mobile?: RegExp;
}

/**
 * libphonenumber's patterns match a whole national number. Compiled once, from the package's data, never from
 * input; what they test is at most 14 digits.
 */
const whole = (source: string) => (source ? new RegExp(`^(?:${source})$`) : undefined);

let table: Map<string, RegionRanges[]> | undefined;

/** The regions of each calling code, its main region first (the order libphonenumber tries them in). */
function regionsByCallingCode(): Map<string, RegionRanges[]> {
	if (table) return table;
	table = new Map();
	for (const row of countryWideRanges) {
		const [callingCode, leadingDigits, zones, countryWide, mobile] = row.split(' ');
		const regions = table.get(callingCode) ?? [];
		regions.push({
			leadingDigits: leadingDigits ? new RegExp(`^(?:${leadingDigits})`) : undefined,
			zones: Object.freeze(zones ? zones.split('&') : []),
			countryWide: whole(countryWide),
			mobile: whole(mobile),
		});
		table.set(callingCode, regions);
	}
	return table;
}

/** Calling codes are one to three digits, and none is the start of another. */
const LONGEST_CALLING_CODE = 3;

/** A number in a range not allocated by place: its calling code, and its region's zones when not the main one. */
export interface CountryWideRange {
	callingCode: string;
	/** Empty: every zone of the calling code. */
	regionZones: readonly string[];
}

/**
 * Where E.164 digits (no `+`) may be when the number is in a range not allocated by place, in the first region
 * of its calling code whose leading digits take it (Australia then Christmas Island for +61, the US then Canada
 * for +1). A number in a mobile range is country-wide even when it is in a fixed-line range too (Chile's one
 * pattern for both), except where mobiles are numbered by area (the rows then have no mobile ranges).
 * Undefined otherwise: the prefix's zones stand.
 */
export function countryWideRange(digits: string): CountryWideRange | undefined {
	const regions = regionsByCallingCode();
	for (let length = 1; length <= LONGEST_CALLING_CODE; length++) {
		const callingCode = digits.slice(0, length);
		const candidates = regions.get(callingCode);
		if (!candidates) continue;
		const national = digits.slice(length);
		for (const region of candidates) {
			if (region.leadingDigits && !region.leadingDigits.test(national)) continue;
			if (region.countryWide?.test(national) || region.mobile?.test(national))
				return { callingCode, regionZones: region.zones };
		}
		return undefined;
	}
	return undefined;
}
