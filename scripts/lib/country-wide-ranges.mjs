// The ranges of a calling code whose numbers are not allocated by place, from libphonenumber's number metadata
// (resources/PhoneNumberMetadata.xml): a number in one of them may be anywhere its country is, so Calling Hours
// gives it every zone the time-zone map lists for the calling code. This is libphonenumber's own rule
// (PhoneNumberToTimeZonesMapper: a number whose type is not geographical gets the calling code's zones), with
// its list of calling codes whose mobiles are placed by area code, less Indonesia (see GEO_MOBILE_CALLING_CODES).
//
// Only calling codes whose zones keep different clocks are written (+44's London, Guernsey, Jersey and Isle of
// Man never differ, so nothing would narrow), and only their main region's patterns: libphonenumber tries the
// main region of a calling code first, so a number its patterns match is that region's.

/** The number types libphonenumber counts as geographical: only these are placed by their prefix. */
const GEOGRAPHICAL_TYPES = new Set(['fixedLine']);

/** The types whose numbers are anywhere in the country (PhoneNumberUtil.isNumberGeographical is false). */
export const COUNTRY_WIDE_TYPES = [
	'premiumRate',
	'tollFree',
	'sharedCost',
	'voip',
	'personalNumber',
	'pager',
	'uan',
	'voicemail',
];

/**
 * PhoneNumberUtil.GEO_MOBILE_COUNTRIES of libphonenumber v9.0.35: mobiles placed by area code in Mexico (52),
 * Argentina (54), Brazil (55), China (86), and "Indonesia: some prefixes only (fixed CDMA wireless)" (62).
 * Indonesia is left out: its mobile pattern is only 8[1-35-9]… (the operators' 08xx ranges, nationwide), and no
 * fixed-line area code starts with 8 (test/node/call/create/callingHours/countryWideRanges.unit.test.cts checks both).
 */
export const GEO_MOBILE_CALLING_CODES = new Set(['52', '54', '55', '86']);

/** The instants at which two zones must show the same offset to count as one clock: every 6 h of 2026–2028. */
const SAME_CLOCK_INSTANTS = Array.from(
	{ length: 3 * 366 * 4 },
	(_, index) => Date.UTC(2026, 0, 1) + index * 6 * 3_600_000,
);

function offsetsOf(zone) {
	const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
	return SAME_CLOCK_INSTANTS.map((ms) => format.format(ms).split(' ').pop()).join();
}

/** Whether the zones ever show different clocks (the platform's tz data decides). */
export function keepDifferentClocks(zones) {
	return new Set(zones.map(offsetsOf)).size > 1;
}

/** The metadata's territories: `{ id, countryCode, main, leadingDigits, patterns: { type: source } }`. */
export function readTerritories(xml) {
	const text = xml.replace(/<!--[\s\S]*?-->/g, '');
	const territories = [];
	for (const [, attributes, body] of text.matchAll(
		/<territory\s([^>]*)>([\s\S]*?)<\/territory>/g,
	)) {
		const attribute = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
		const patterns = {};
		for (const [, type, content] of body.matchAll(/<(\w+)>((?:(?!<\/\1>)[\s\S])*)<\/\1>/g)) {
			const pattern = /<nationalNumberPattern>([\s\S]*?)<\/nationalNumberPattern>/.exec(content);
			if (pattern) patterns[type] = pattern[1].replace(/\s+/g, '');
		}
		territories.push({
			id: attribute('id'),
			countryCode: attribute('countryCode'),
			main: attribute('mainCountryForCode') === 'true',
			leadingDigits: attribute('leadingDigits')?.replace(/\s+/g, ''),
			patterns,
		});
	}
	if (territories.length < 200)
		throw new Error(`PhoneNumberMetadata.xml gave ${territories.length} territories`);
	return territories;
}

/**
 * Per calling code that qualifies: `{ countryCode, region, leadingDigits, countryWide, mobile, fixedLine }`,
 * patterns as sources; `mobile` and `fixedLine` only where a mobile is country-wide (a number matching both is
 * libphonenumber's FIXED_LINE_OR_MOBILE: geographical).
 */
export function countryWideRanges(xml, mapEntries) {
	const countryZones = new Map(mapEntries.map(({ prefix, zones }) => [prefix, zones]));
	const byCode = new Map();
	for (const territory of readTerritories(xml)) {
		if (territory.id === '001') continue; // +800 etc.: the map gives them no zone at all
		const regions = byCode.get(territory.countryCode) ?? [];
		regions.push(territory);
		byCode.set(territory.countryCode, regions);
	}
	const ranges = [];
	for (const [countryCode, regions] of byCode) {
		const zones = (countryZones.get(countryCode) ?? []).filter((zone) => zone !== 'Etc/Unknown');
		if (zones.length < 2 || !keepDifferentClocks(zones)) continue;
		const region = regions.find((territory) => territory.main) ?? regions[0];
		if (regions.length > 1 && !region.main)
			throw new Error(`+${countryCode} has several regions and none is the main one`);
		const { patterns } = region;
		for (const type of Object.keys(patterns))
			if (
				!GEOGRAPHICAL_TYPES.has(type) &&
				!COUNTRY_WIDE_TYPES.includes(type) &&
				!['generalDesc', 'noInternationalDialling', 'mobile'].includes(type)
			)
				throw new Error(`${region.id} has a number type this generator does not know: ${type}`);
		const countryWide = COUNTRY_WIDE_TYPES.filter((type) => patterns[type]).map(
			(type) => patterns[type],
		);
		const mobileIsCountryWide =
			patterns.mobile &&
			patterns.mobile !== patterns.fixedLine &&
			!GEO_MOBILE_CALLING_CODES.has(countryCode);
		if (countryWide.length === 0 && !mobileIsCountryWide) continue;
		ranges.push({
			countryCode,
			region: region.id,
			leadingDigits: region.leadingDigits ?? '',
			countryWide: countryWide.join('|'),
			mobile: mobileIsCountryWide ? patterns.mobile : '',
			fixedLine: mobileIsCountryWide ? (patterns.fixedLine ?? '') : '',
		});
	}
	return ranges.sort((a, b) => a.countryCode.localeCompare(b.countryCode));
}

/** Fields of a row are separated by a space: patterns have none once the XML's layout is removed. */
const FIELD_SEPARATOR = ' ';

/** The TypeScript module: one row of pattern sources per calling code, one line each. */
export function generateCountryWideRanges(xml, mapEntries, source) {
	const ranges = countryWideRanges(xml, mapEntries);
	const quote = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
	const rows = ranges.flatMap(
		({ countryCode, region, leadingDigits, countryWide, mobile, fixedLine }) => {
			const fields = [countryCode, leadingDigits, countryWide, mobile, fixedLine];
			if (fields.some((field) => field.includes(FIELD_SEPARATOR)))
				throw new Error(`${region} has a pattern with a space`);
			return [`\t// ${region}`, `\t${quote(fields.join(FIELD_SEPARATOR))},`];
		},
	);
	return [
		`// Generated by scripts/phone-zones.mjs from libphonenumber ${source.version} (commit ${source.commit}),`,
		`// ${source.metadataPath}, ${source.licence} (see THIRD_PARTY_NOTICES.md). Do not edit: \`npm run build\` writes it.`,
		'',
		'/**',
		` * The ${ranges.length} calling codes whose zones keep different clocks, one row each for its main region, fields`,
		" * separated by a space: the calling code, the region's leading digits (empty: any), then national-number",
		' * patterns: the country-wide types (premium, toll-free, shared-cost, VoIP, personal, pager, UAN, voicemail),',
		' * the mobile ranges (empty: placed by area code, or the same as fixed line), and the fixed-line ranges (only',
		' * beside mobile ones).',
		' */',
		'export const countryWideRanges: readonly string[] = [',
		...rows,
		'];',
		'',
	].join('\n');
}
