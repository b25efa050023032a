// The ranges of a calling code whose numbers are not allocated by place, from libphonenumber's number metadata
// (resources/PhoneNumberMetadata.xml): a number in one of them may be anywhere its country is, so Calling Hours
// gives it every zone the time-zone map lists for the calling code. This is libphonenumber's own rule
// (PhoneNumberToTimeZonesMapper: a number whose type is not geographical gets the calling code's zones), with
// its list of calling codes whose mobiles are placed by area code, less Indonesia and with the North American
// plan (see AREA_MOBILE_CALLING_CODES). A number in a mobile range counts as one also when it is in a fixed-line
// range (libphonenumber's FIXED_LINE_OR_MOBILE, e.g. all of Chile): it may be a mobile.
//
// Only calling codes whose zones keep different clocks are written (+44's London, Guernsey, Jersey and Isle of
// Man never differ, so nothing would narrow). Their main region comes first, as libphonenumber tries it first;
// another region of the calling code gets a row of its own, with its own zones, where the map's prefix would
// place one of its country-wide ranges outside it (Canada's UAN 310… is the US area code 310).

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
 * Where mobiles are numbered by area: PhoneNumberUtil.GEO_MOBILE_COUNTRIES of libphonenumber v9.0.35, Mexico
 * (52), Argentina (54), Brazil (55), China (86), and "Indonesia: some prefixes only (fixed CDMA wireless)" (62),
 * with the North American plan (1), whose mobiles take the area codes of fixed lines. Indonesia is left out: its
 * mobile pattern is only 8[1-35-9]… (the operators' 08xx ranges, nationwide), and no fixed-line area code starts
 * with 8 (test/node/shared/phoneZones/countryWideRanges.unit.test.cts checks both).
 */
export const AREA_MOBILE_CALLING_CODES = new Set(['1', '52', '54', '55', '86']);

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

/** The metadata's territories: `{ id, countryCode, main, leadingDigits, patterns, examples }` (by type). */
export function readTerritories(xml) {
	const text = xml.replace(/<!--[\s\S]*?-->/g, '');
	const territories = [];
	for (const [, attributes, body] of text.matchAll(
		/<territory\s([^>]*)>([\s\S]*?)<\/territory>/g,
	)) {
		const attribute = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
		const patterns = {};
		const examples = {};
		for (const [, type, content] of body.matchAll(/<(\w+)>((?:(?!<\/\1>)[\s\S])*)<\/\1>/g)) {
			const pattern = /<nationalNumberPattern>([\s\S]*?)<\/nationalNumberPattern>/.exec(content);
			if (pattern) patterns[type] = pattern[1].replace(/\s+/g, '');
			const example = /<exampleNumber>(\d+)<\/exampleNumber>/.exec(content);
			if (example) examples[type] = example[1];
		}
		territories.push({
			id: attribute('id'),
			countryCode: attribute('countryCode'),
			main: attribute('mainCountryForCode') === 'true',
			leadingDigits: attribute('leadingDigits')?.replace(/\s+/g, ''),
			patterns,
			examples,
		});
	}
	if (territories.length < 200)
		throw new Error(`PhoneNumberMetadata.xml gave ${territories.length} territories`);
	return territories;
}

/**
 * A regular expression that accepts exactly the starts of the numbers `source` matches: each digit, `\d` or
 * class may instead meet the end of the text (libphonenumber's national-number patterns are only these, groups,
 * alternatives and counts, so every atom left after the end could still be met by some digit).
 */
export function startsPattern(source) {
	const open = source.replace(/\\d|\[[^\]]*\]|\{[^}]*\}|\d/g, (token) =>
		token.startsWith('{') ? token : `(?:${token}|$)`,
	);
	return new RegExp(`^(?:${open})$`);
}

/**
 * The zones the map's longest prefix gives the numbers of a region that `pattern` matches: the map's prefixes are
 * walked digit by digit as far as such a number (with the region's leading digits) can start with them. Numbers
 * under no prefix longer than the calling code get the calling code's zones.
 */
export function zonesReached(region, pattern, mapEntries) {
	const { countryCode, leadingDigits } = region;
	const starts = startsPattern(pattern);
	const leadingStarts = leadingDigits ? startsPattern(leadingDigits) : undefined;
	const leading = leadingDigits ? new RegExp(`^(?:${leadingDigits})`) : undefined;
	const viable = (national) =>
		starts.test(national) && (!leading || leading.test(national) || leadingStarts.test(national));
	const zonesOf = new Map(mapEntries.map(({ prefix, zones }) => [prefix, zones]));
	const refined = new Set(
		mapEntries.flatMap(({ prefix }) =>
			Array.from({ length: prefix.length }, (_, length) => prefix.slice(0, length)),
		),
	);
	const zones = new Set();
	const walk = (digits, inherited) => {
		const own = zonesOf.get(digits) ?? inherited;
		if (!refined.has(digits)) {
			for (const zone of own) if (zone !== 'Etc/Unknown') zones.add(zone);
			return;
		}
		for (let digit = 0; digit <= 9; digit++)
			if (viable(digits.slice(countryCode.length) + digit)) walk(digits + digit, own);
	};
	walk(countryCode, []);
	return [...zones].sort();
}

/**
 * The zones of one region of a shared calling code: what the map gives the region's fixed-line numbers (the map
 * places fixed lines). Christmas Island's +61 8 9164 is its own, not Australia's +61 8. Empty without fixed lines.
 */
export function regionZones(region, mapEntries) {
	return region.patterns.fixedLine
		? zonesReached(region, region.patterns.fixedLine, mapEntries)
		: [];
}

/**
 * Whether a region's own row changes an answer: some number in its country-wide ranges gets from the map a zone
 * outside the region (Canada's UAN 310… is the US area code 310, Los Angeles; the Dominican Republic's toll-free
 * +1 800 14… is under no prefix but +1, every zone of the calling code).
 */
function needsOwnRow(region, pattern, zones, mapEntries) {
	return zonesReached(region, pattern, mapEntries).some((zone) => !zones.includes(zone));
}

/**
 * Per region of each calling code that qualifies, the main region first:
 * `{ countryCode, region, main, leadingDigits, zones, countryWide, mobile, mobileIsFixedLine }`, patterns as
 * sources. `zones` is empty for the main region (its numbers get every zone of the calling code) and the
 * region's own zones for the others (a Canadian UAN is in Canada, not in the US area code 310 it starts with).
 * `mobile` is the mobile ranges where a mobile is anywhere in its country: libphonenumber cannot tell some
 * mobiles from fixed lines (Chile: one pattern for both, FIXED_LINE_OR_MOBILE), so a number in a mobile range is
 * country-wide even when it is also in a fixed-line range, except where mobiles are numbered by area
 * (AREA_MOBILE_CALLING_CODES). `mobileIsFixedLine`: a mobile or fixed-line example is in both ranges.
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
		const main = regions.find((territory) => territory.main) ?? regions[0];
		if (regions.length > 1 && !main.main)
			throw new Error(`+${countryCode} has several regions and none is the main one`);
		for (const region of [main, ...regions.filter((territory) => territory !== main)]) {
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
			const mobile =
				patterns.mobile && !AREA_MOBILE_CALLING_CODES.has(countryCode) ? patterns.mobile : '';
			if (countryWide.length === 0 && !mobile) continue;
			const ownZones = region === main ? [] : regionZones(region, mapEntries);
			const ownRanges = [...countryWide, mobile].filter(Boolean).join('|');
			if (
				region !== main &&
				ownZones.length > 0 &&
				!needsOwnRow(region, ownRanges, ownZones, mapEntries)
			)
				continue;
			const { fixedLine: fixedExample, mobile: mobileExample } = region.examples;
			const matches = (pattern, number) =>
				Boolean(pattern && number && new RegExp(`^(?:${pattern})$`).test(number));
			ranges.push({
				countryCode,
				region: region.id,
				main: region === main,
				leadingDigits: region.leadingDigits ?? '',
				zones: ownZones,
				countryWide: countryWide.join('|'),
				mobile,
				mobileIsFixedLine:
					Boolean(mobile) &&
					(matches(mobile, fixedExample) || matches(patterns.fixedLine, mobileExample)),
				fixedLineExample: fixedExample ?? '',
				types: [
					...COUNTRY_WIDE_TYPES.filter((type) => patterns[type]),
					...(mobile ? ['mobile'] : []),
				],
			});
		}
	}
	return ranges.sort(
		(a, b) => a.countryCode.localeCompare(b.countryCode) || Number(b.main) - Number(a.main),
	);
}

/** Fields of a row are separated by a space: patterns have none once the XML's layout is removed. */
const FIELD_SEPARATOR = ' ';

/** The TypeScript module: one row of pattern sources per region, one line each. */
export function generateCountryWideRanges(xml, mapEntries, source) {
	const ranges = countryWideRanges(xml, mapEntries);
	const quote = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
	const rows = ranges.flatMap(
		({ countryCode, region, leadingDigits, zones, countryWide, mobile }) => {
			const fields = [countryCode, leadingDigits, zones.join('&'), countryWide, mobile];
			if (fields.some((field) => field.includes(FIELD_SEPARATOR)))
				throw new Error(`${region} has a pattern with a space`);
			return [`\t// ${region}`, `\t${quote(fields.join(FIELD_SEPARATOR))},`];
		},
	);
	const codes = new Set(ranges.map((range) => range.countryCode));
	return [
		`// Generated by scripts/phone-zones.mjs from libphonenumber ${source.version} (commit ${source.commit}),`,
		`// ${source.metadataPath}, ${source.licence} (see THIRD_PARTY_NOTICES.md). Do not edit: \`npm run build\` writes it.`,
		'',
		'/**',
		` * ${ranges.length} regions of the ${codes.size} calling codes whose zones keep different clocks, the main region of a`,
		' * calling code first (libphonenumber tries it first), one row each, fields separated by a space: the calling',
		" * code, the region's leading digits (empty: any), the region's zones (`&` between them; empty: every zone of",
		' * the calling code), then national-number patterns: the country-wide types (premium, toll-free, shared-cost,',
		' * VoIP, personal, pager, UAN, voicemail), and the mobile ranges (empty: mobiles numbered by area).',
		' */',
		'export const countryWideRanges: readonly string[] = [',
		...rows,
		'];',
		'',
	].join('\n');
}
