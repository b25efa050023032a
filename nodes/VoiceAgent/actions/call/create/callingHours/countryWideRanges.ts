/**
 * Numbers not allocated by place: mobiles outside area-code numbering, toll-free, shared-cost, VoIP, personal,
 * pager, UAN, premium and voicemail numbers. One may be anywhere its country is, whatever zone the prefix map
 * gives its range (it gives the whole +61 4 mobile range Australia/Sydney). The patterns are libphonenumber's
 * (generated into `countryWideRanges.data.ts` by `scripts/phone-zones.mjs`), for the calling codes whose zones
 * keep different clocks; elsewhere the answer would not change a window.
 */
import { countryWideRanges } from './countryWideRanges.data';

interface CompiledRanges {
	leadingDigits?: RegExp;
	countryWide?: RegExp;
	mobile?: RegExp;
	fixedLine?: RegExp;
}

/**
 * libphonenumber's patterns match a whole national number. Compiled once, from the package's data, never from
 * input; what they test is at most 14 digits.
 */
const whole = (source: string) => (source ? new RegExp(`^(?:${source})$`) : undefined);

let table: Map<string, CompiledRanges> | undefined;

function rangesByCallingCode(): Map<string, CompiledRanges> {
	if (table) return table;
	table = new Map();
	for (const row of countryWideRanges) {
		const [callingCode, leadingDigits, countryWide, mobile, fixedLine] = row.split(' ');
		table.set(callingCode, {
			leadingDigits: leadingDigits ? new RegExp(`^(?:${leadingDigits})`) : undefined,
			countryWide: whole(countryWide),
			mobile: whole(mobile),
			fixedLine: whole(fixedLine),
		});
	}
	return table;
}

/** Calling codes are one to three digits, and none is the start of another. */
const LONGEST_CALLING_CODE = 3;

/**
 * The calling code of E.164 digits (no `+`) when the number is in a range not allocated by place, in the
 * country libphonenumber gives the calling code first (Australia for +61, Russia for +7, the US for +1).
 * Undefined otherwise, including a mobile that also matches the fixed-line pattern (the North American plan:
 * mobiles and fixed lines share area codes, so the area code's zone stays).
 */
export function countryWideCallingCode(digits: string): string | undefined {
	const ranges = rangesByCallingCode();
	for (let length = 1; length <= LONGEST_CALLING_CODE; length++) {
		const callingCode = digits.slice(0, length);
		const range = ranges.get(callingCode);
		if (!range) continue;
		const national = digits.slice(length);
		if (range.leadingDigits && !range.leadingDigits.test(national)) return undefined;
		if (range.countryWide?.test(national)) return callingCode;
		const mobile = range.mobile?.test(national) && !range.fixedLine?.test(national);
		return mobile ? callingCode : undefined;
	}
	return undefined;
}
