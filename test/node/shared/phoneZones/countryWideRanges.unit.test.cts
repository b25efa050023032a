/**
 * Numbers not allocated by place (mobiles outside area-code numbering, toll-free, shared-cost, VoIP, …): the
 * generated patterns are libphonenumber's, read here from the vendored metadata apart from the generator,
 * and a number in such a range gets every zone of its calling code, or of its region where the calling code is
 * shared by regions in different zones (Canada beside the US on +1).
 */
import fs from 'node:fs';
import path from 'node:path';

import { countryWideRange } from '../../../../nodes/shared/phoneZones/countryWideRanges';
import { countryWideRanges } from '../../../../nodes/shared/phoneZones/countryWideRanges.data';
import { zonesOfNumber } from '../../../../nodes/shared/phoneZones/phoneZones';

const SOURCE_DIR = path.resolve(__dirname, '../../../../scripts/data/libphonenumber');
const metadata = fs
	.readFileSync(path.join(SOURCE_DIR, 'PhoneNumberMetadata.xml'), 'utf8')
	.replace(/<!--[\s\S]*?-->/g, '');
const mapText = fs.readFileSync(path.join(SOURCE_DIR, 'timezones-map_data.txt'), 'utf8');

/** A territory's attributes and the national-number pattern of one of its number types ('' when none). */
function territory(id: string) {
	const block = new RegExp(`<territory id="${id}"[^>]*>[\\s\\S]*?</territory>`).exec(metadata);
	if (!block) throw new Error(`no territory ${id}`);
	const text = block[0];
	return {
		attributes: /<territory[^>]*>/.exec(text)![0],
		pattern: (type: string) =>
			(
				new RegExp(
					`<${type}>(?:(?!</${type}>)[\\s\\S])*?<nationalNumberPattern>([\\s\\S]*?)</nationalNumberPattern>`,
				).exec(text)?.[1] ?? ''
			).replace(/\s+/g, ''),
	};
}

/** libphonenumber's order of the types it checks before fixed line and mobile (PhoneNumberUtil.getNumberTypeHelper). */
const COUNTRY_WIDE_TYPES = [
	'premiumRate',
	'tollFree',
	'sharedCost',
	'voip',
	'personalNumber',
	'pager',
	'uan',
	'voicemail',
];

/** The generated module names each row's region in a comment above it. */
const regionIds = [
	...fs
		.readFileSync(
			path.resolve(__dirname, '../../../../nodes/shared/phoneZones/countryWideRanges.data.ts'),
			'utf8',
		)
		.matchAll(/^\t\/\/ ([A-Z]{2})$/gm),
].map((match) => match[1]);
const rows = countryWideRanges.map((row, index) => {
	const [callingCode, leadingDigits, zones, countryWide, mobile] = row.split(' ');
	return { region: regionIds[index], callingCode, leadingDigits, zones, countryWide, mobile };
});
const mainRegionOf = (callingCode: string) =>
	[
		...metadata.matchAll(
			new RegExp(`<territory id="([A-Z]{2})"[^>]*countryCode="${callingCode}"[^>]*>`, 'g'),
		),
	]
		.map(([attributes, id]) => ({ id, main: attributes.includes('mainCountryForCode="true"') }))
		.sort((a, b) => Number(b.main) - Number(a.main))[0].id;
/** Calling codes whose mobiles are numbered by area: MX, AR, BR, CN (libphonenumber) and the North American plan. */
const AREA_MOBILES = ['1', '52', '54', '55', '86'];

describe('the generated ranges and the vendored metadata', () => {
	test('each row is a region of its calling code, the main one first (every zone of the calling code), with that region’s own patterns', () => {
		expect(rows.length).toBe(regionIds.length);
		expect(rows.length).toBeGreaterThan(10);
		for (const [index, row] of rows.entries()) {
			const source = territory(row.region);
			expect(source.attributes).toContain(`countryCode="${row.callingCode}"`);
			const first = index === 0 || rows[index - 1].callingCode !== row.callingCode;
			expect([row.region, first]).toEqual([
				row.region,
				row.region === mainRegionOf(row.callingCode),
			]);
			expect([row.region, row.zones === '']).toEqual([row.region, first]);
			expect(row.countryWide).toBe(
				COUNTRY_WIDE_TYPES.map(source.pattern)
					.filter((pattern) => pattern !== '')
					.join('|'),
			);
			expect(row.leadingDigits).toBe(/leadingDigits="([^"]*)"/.exec(source.attributes)?.[1] ?? '');
			const mobile = AREA_MOBILES.includes(row.callingCode) ? '' : source.pattern('mobile');
			expect([row.region, row.mobile]).toEqual([row.region, mobile]);
		}
	});

	test('a region beside its calling code’s main one has a row, with its own zones, where the map would place its ranges outside it', () => {
		const zonesOf = (region: string) => rows.find((row) => row.region === region)?.zones.split('&');
		// Canada's UAN 310… starts with the US area code 310 (Los Angeles).
		expect(zonesOf('CA')).toEqual([
			'America/Edmonton',
			'America/Fort_Nelson',
			'America/Halifax',
			'America/Puerto_Rico', // the map's zone for Labrador's +1 709 and +1 879, beside St John's
			'America/Regina',
			'America/St_Johns',
			'America/Toronto',
			'America/Vancouver',
			'America/Winnipeg',
		]);
		// The Dominican Republic's toll-free +1 800 14… is under no prefix of the map but +1's 42 zones.
		expect(zonesOf('DO')).toEqual(['America/Santo_Domingo']);
		expect(zonesOf('YT')).toEqual(['Indian/Mayotte']);
		// Jamaica's and Kazakhstan's ranges start with prefixes the map gives their own zones: no row needed.
		expect(zonesOf('JM')).toBeUndefined();
		expect(zonesOf('KZ')).toBeUndefined();
	});

	test('mobiles are country-wide except where they are numbered by area (MX, AR, BR, CN, the North American plan), also where libphonenumber cannot tell them from fixed lines (Chile)', () => {
		const withMobile = rows.filter((row) => row.mobile !== '').map((row) => row.callingCode);
		expect(withMobile).toEqual(expect.arrayContaining(['61', '62', '7', '56']));
		for (const code of AREA_MOBILES) expect(withMobile).not.toContain(code);
		expect(territory('US').pattern('mobile')).toBe(territory('US').pattern('fixedLine'));
		// Chile's two patterns differ as text, yet every mobile it gives is also a fixed line: 9… and 2… alike.
		const chile = territory('CL');
		const whole = (type: string) => new RegExp(`^(?:${chile.pattern(type)})$`);
		expect(chile.pattern('mobile')).not.toBe(chile.pattern('fixedLine'));
		for (const national of ['960123356', '221234567'])
			expect([national, whole('mobile').test(national), whole('fixedLine').test(national)]).toEqual(
				[national, true, true],
			);
	});

	test('Indonesia: its mobiles are the 8… ranges, and no fixed-line number starts with 8 (libphonenumber lists +62 among placed mobiles for "some prefixes only")', () => {
		const indonesia = territory('ID');
		expect(indonesia.pattern('mobile')).toBe('8[1-35-9]\\d{7,10}');
		const fixedLine = new RegExp(`^(?:${indonesia.pattern('fixedLine')})$`);
		for (let prefix = 800; prefix <= 899; prefix++)
			for (let length = 7; length <= 11; length++)
				for (const fill of ['0', '1', '5', '9'])
					expect([prefix, length, fill, fixedLine.test(`${prefix}`.padEnd(length, fill))]).toEqual([
						prefix,
						length,
						fill,
						false,
					]);
	});
});

const CANADA = rows.find((row) => row.region === 'CA')!.zones.split('&');

describe('countryWideRange and zonesOfNumber', () => {
	test.each([
		['61412345678', '61'], // Australian mobile
		['611800123456', '61'], // Australian toll-free
		['61851101234', undefined], // a fixed line in Perth
		['79141234567', '7'], // Russian mobile
		['74951234567', undefined], // a fixed line in Moscow
		['77011234567', undefined], // Kazakh mobile: Russia's leading digits [3489] do not take it; the map's +7 7 is Kazakh
		['18001400000', '1', ['America/Santo_Domingo']], // Dominican toll-free: not the US's, under the map's +1 only
		['56960123356', '56'], // Chilean mobile or fixed line (one pattern for both)
		['56221234567', '56'], // Chile's example mobile, in Santiago's 2 like its fixed lines
		['13105678', '1', CANADA], // Canadian UAN: Canada's zones, not the US's 310 (Los Angeles)
		['16002012345', '1', CANADA], // Canadian VoIP
		['6281234567890', '62'], // Indonesian mobile
		['622112345678', undefined], // a fixed line in Jakarta
		['12125550123', undefined], // North American: mobile and fixed line alike
		['18005550123', '1'], // North American toll-free
		['5511987654321', undefined], // Brazilian mobile, placed by its area code
		['558001234567', '55'], // Brazilian toll-free
		['525512345678', undefined], // Mexican mobile, placed by its area code
		['34612345678', '34'], // Spanish mobile: Madrid or the Canaries
		['447912345678', undefined], // UK mobile: +44's zones never differ
	] as Array<[string, string | undefined, string[]?]>)(
		'%s: %s',
		(digits, callingCode, zones = []) => {
			const range = countryWideRange(digits);
			expect(range?.callingCode).toBe(callingCode);
			if (range) expect(range.regionZones).toEqual(zones);
		},
	);

	test("a country-wide number gets every zone of its calling code, the prefix's own first", () => {
		const australia = /^61\|(.+)$/m.exec(mapText)![1].split('&');
		const zones = zonesOfNumber('+61 412 345 678')!;
		expect(zones[0]).toBe('Australia/Sydney');
		expect([...zones].sort()).toEqual([...australia].sort());
		expect(zonesOfNumber('+61 8 5110 1234')).toEqual(['Australia/Perth']);
		expect(zonesOfNumber('+62 812 3456 7890')).toEqual([
			'Asia/Jakarta',
			'Asia/Jayapura',
			'Asia/Makassar',
		]);
	});
});
