/**
 * One spelling per person: the canonical E.164 form. The national prefixes and patterns are libphonenumber's,
 * read here from the vendored metadata apart from the generator, and every region's example numbers, written
 * in each spelling a person might use, come out as one number. Where a national prefix written without
 * brackets is removed, and how it is rewritten, is checked against libphonenumber's own parser in
 * phoneNumber.oracle.properties.test.cts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { canonicalPhoneNumber } from '../../../nodes/shared/phoneNumber';
import { callingCodes } from '../../../nodes/shared/phoneNumber.data';
import { examples, mainRegionOf, regions, ROOT } from '../../support/phoneMetadata.cts';

const canonical = (text: string) => canonicalPhoneNumber(text);

describe('the canonical form of a number', () => {
	test.each([
		['+44 (0)20 7946 0123', '+442079460123'],
		['+44 20 7946 0123', '+442079460123'],
		['+44 020 7946 0123', '+442079460123'],
		['+442079460123', '+442079460123'],
		['+49 (0)30 1234567', '+49301234567'],
		['+49 030 1234567', '+49301234567'],
		['+33 (0)1 23 45 67 89', '+33123456789'],
		['+33 01 23 45 67 89', '+33123456789'],
		['+39 06 6982 1234', '+390669821234'],
		['+1 (415) 555-0123', '+14155550123'],
		['+1 1 415 555 0123', '+14155550123'],
		['+61 (2) 9876 5432', '+61298765432'],
		['+61 (0)2 9876 5432', '+61298765432'],
		['+36 (06) 1 234 5678', '+3612345678'],
		['+7 (8) 495 123-45-67', '+74951234567'],
		['+7 (495) 123-45-67', '+74951234567'],
		['+46 (8) 123 456 78', '+46812345678'],
	])('%s is %s', (written, number) => {
		expect(canonical(written)).toEqual({ number });
	});

	test.each([
		['+39 (0)6 6982 1234', 'writes a national prefix "(0)" after +39, where numbers have none'],
		['+1 (0) 415 555 0123', 'writes a national prefix "(0)" after +1, where numbers have "1"'],
	])('%s is refused: the trunk prefix belongs to no number of its country', (written, problem) => {
		expect(canonical(written)).toEqual({
			problem: `${problem}, so the number meant is unclear`,
			hint: expect.stringContaining('without "(0)"'),
		});
	});

	test.each([
		'+44 20 7946 O123',
		'+1 415 CALL NOW',
		'4420 7946 0123',
		'+0 20 7946 0123',
		'+44 (20 7946 0123',
		'+123456',
		'+1234567890123456',
		42,
	])('%s is refused: no E.164 number', (written) => {
		expect(canonical(written as string)).toEqual({
			problem: 'is not written in E.164 form',
			hint: expect.stringContaining('7 to 15 digits'),
		});
	});

	test('a prefix (Allowed Destinations) loses a trunk prefix in brackets only', () => {
		expect(canonicalPhoneNumber('+44 (0)20', 'prefix')).toEqual({ number: '+4420' });
		expect(canonicalPhoneNumber('+44 20', 'prefix')).toEqual({ number: '+4420' });
		expect(canonicalPhoneNumber('+1415', 'prefix')).toEqual({ number: '+1415' });
		expect(canonicalPhoneNumber('+4', 'prefix')).toEqual({ number: '+4' });
	});
});

/**
 * Issue 41: the package read only each country's `nationalPrefix`, so a national prefix libphonenumber reads
 * through `nationalPrefixForParsing` (and rewrites with `nationalPrefixTransformRule`) stayed in the number:
 * one person written two ways was two numbers, called twice, and the service was asked to dial a spelling
 * libphonenumber reads as the other one. Each row failed before (the first spelling kept its prefix).
 */
describe("one person is one number by libphonenumber's parsing rules (issue 41)", () => {
	test.each([
		[
			'Lithuania, its former trunk prefix 8',
			['+370 8 612 34567', '+370 (8) 612 34567', '+370 612 34567'],
			'+37061234567',
		],
		[
			'Belarus, its prefix 8 0',
			['+375 8029 123 45 67', '+375 (8) 029 123-45-67', '+375 29 123 45 67'],
			'+375291234567',
		],
		[
			'Argentina, a mobile written with 15 after the area code (the 9 is inserted)',
			['+54 11 15 2345-6789', '+54 (0)11 15 2345 6789', '+54 9 11 2345-6789'],
			'+5491123456789',
		],
		[
			'Gabon, its former 0 before the eight digits',
			['+241 0 11 23 45 67', '+241 (0) 11 23 45 67', '+241 11 23 45 67'],
			'+24111234567',
		],
	])('%s: every spelling is one number', (_, spellings, number) => {
		for (const written of spellings)
			expect([written, canonical(written)]).toEqual([written, { number }]);
	});

	test('Allowed Destinations read a whole number the same way, and a shorter prefix loses only a national prefix in brackets', () => {
		expect(canonicalPhoneNumber('+370 8 612 34567', 'prefix')).toEqual({ number: '+37061234567' });
		expect(canonicalPhoneNumber('+54 11 15 2345-6789', 'prefix')).toEqual({
			number: '+5491123456789',
		});
		expect(canonicalPhoneNumber('+370 (0) 6', 'prefix')).toEqual({ number: '+3706' });
		expect(canonicalPhoneNumber('+375 29', 'prefix')).toEqual({ number: '+37529' });
	});

	test('named (properties, seed 836341676): a prefix is never completed as a local number, Madagascar +261 22 12 345', () => {
		// As a number, seven digits are a local number the rule completes with its area code 20; as an
		// Allowed Destinations entry they are the start of +261 22 12 345 67, which they must keep allowing.
		expect(canonical('+261 22 12 345')).toEqual({ number: '+261202212345' });
		expect(canonicalPhoneNumber('+261 22 12 345', 'prefix')).toEqual({ number: '+2612212345' });
		expect(canonical('+261 22 12 345 67')).toEqual({ number: '+261221234567' });
	});
});

describe('against libphonenumber metadata, every region', () => {
	test('the generated module is what scripts/phone-trunk-prefixes.mjs makes of the source (run npm run build)', () => {
		const output = execFileSync(process.execPath, ['scripts/phone-trunk-prefixes.mjs', '--check'], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		expect(output).toContain('is up to date');
	});

	test("each calling code's national prefix for parsing, transform rule and pattern are its main region's", () => {
		const rows = callingCodes.split('\n').map((row) => row.split(' '));
		expect(rows.map(([code]) => code).sort()).toEqual(
			[...new Set(regions.map((region) => region.code))].sort(),
		);
		for (const [code, trunk, , , transform, parsing, pattern] of rows) {
			const main = mainRegionOf(code);
			expect([code, trunk, transform, parsing, `^(?:${pattern})$`]).toEqual([
				code,
				main.trunk ?? '',
				main.transform,
				main.parsing,
				main.general.source,
			]);
		}
		const withParsing = rows.filter((row) => row[5] !== '').map(([code]) => code);
		expect(withParsing).toEqual(expect.arrayContaining(['54', '241', '370', '375', '44', '1']));
		expect(rows.find(([code]) => code === '39')![5]).toBe('');
	});

	test('the package names the source of the data it ships', () => {
		const notices = fs.readFileSync(path.join(ROOT, 'THIRD_PARTY_NOTICES.md'), 'utf8');
		expect(notices).toContain('`dist/nodes/shared/phoneNumber.data.js`');
		expect(notices).toContain('libphonenumber v9.0.35');
	});

	test('there are example numbers for nearly every region', () => {
		expect(new Set(examples.map((example) => example.id)).size).toBeGreaterThan(240);
		expect(examples.length).toBeGreaterThan(1100);
	});

	test('an example number written canonically stays as it is, spaces or not', () => {
		for (const { code, national } of examples) {
			const number = `+${code}${national}`;
			expect([number, canonical(number)]).toEqual([number, { number }]);
			const spaced = `+${code} ${national.slice(0, 3)} ${national.slice(3)}`;
			expect([spaced, canonical(spaced)]).toEqual([spaced, { number }]);
		}
	});

	test('its national prefix in brackets after the calling code is removed; "(0)" is refused where there is none', () => {
		for (const { code, trunk, national } of examples) {
			const written = `+${code} (${trunk ?? '0'}) ${national}`;
			const expected = trunk
				? { number: `+${code}${national}` }
				: { problem: expect.stringContaining('where numbers have none'), hint: expect.any(String) };
			expect([written, canonical(written)]).toEqual([written, expected]);
		}
	});

	test('Italy and San Marino keep their leading 0: it is part of the number', () => {
		const keep = examples.filter((example) => ['IT', 'VA', 'SM'].includes(example.id));
		expect(keep.some((example) => example.national.startsWith('0'))).toBe(true);
		for (const { code, national, trunk } of keep) {
			expect(trunk).toBeUndefined();
			expect(canonical(`+${code} ${national}`)).toEqual({ number: `+${code}${national}` });
		}
	});
});
