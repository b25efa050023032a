/**
 * One spelling per person, as a property: every way a person writes a number (spaces, dashes, dots, an area
 * code in brackets, the national prefix in brackets after the calling code, or written bare where the
 * country drops it) is one canonical number, the same as the number written plainly; the canonical form is
 * its own canonical form; and an Allowed Destinations prefix written any such way still starts the number.
 * Numbers are libphonenumber's example numbers of every region, read from the vendored metadata.
 */
import { parsePhoneNumber } from 'awesome-phonenumber';
import fc from 'fast-check';

import { canonicalPhoneNumber } from '../../../nodes/shared/phoneNumber';
import { examples } from '../../support/phoneMetadata.cts';
import { propertyParameters } from '../../support/properties.cts';

const RUNS = 300;

interface Spelling {
	written: string;
	number: string;
}

/** Digits with a separator drawn before each. */
const spaced = (digits: string, separators: string[]) =>
	[...digits]
		.map((digit, n) => `${n === 0 ? '' : separators[n % separators.length]}${digit}`)
		.join('');

/**
 * One person's number written one way: the calling code; then, perhaps, the national prefix in brackets or
 * bare (only where libphonenumber's parser, awesome-phonenumber, removes it); then the national
 * number with separators, its first digits perhaps in brackets (an area code: never the national prefix
 * alone nor zeros, which would be a trunk prefix).
 */
const spelling: fc.Arbitrary<Spelling> = fc
	.record({
		example: fc.constantFrom(...examples),
		trunk: fc.constantFrom('none', 'bracketed', 'bare'),
		separators: fc.array(fc.constantFrom('', ' ', '-', '.', ' - '), { minLength: 1, maxLength: 4 }),
		areaCode: fc.integer({ min: 0, max: 4 }),
		afterCode: fc.constantFrom('', ' ', '-'),
	})
	.map(({ example, trunk, separators, areaCode, afterCode }) => {
		const { code, national } = example;
		const number = `+${code}${national}`;
		let prefix = '';
		if (example.trunk && trunk === 'bracketed') prefix = `(${example.trunk}) `;
		const bareDropped =
			example.trunk !== undefined &&
			number.length + example.trunk.length <= 16 &&
			parsePhoneNumber(`+${code}${example.trunk}${national}`).number?.e164 === number;
		if (example.trunk && trunk === 'bare' && bareDropped) prefix = example.trunk;
		const group = national.slice(0, areaCode);
		const bracketed =
			prefix === '' && group !== '' && group !== example.trunk && !/^0+$/.test(group);
		const rest = spaced(national.slice(bracketed ? areaCode : 0), separators);
		const body = bracketed ? `(${group}) ${rest}` : rest;
		return { written: `+${code}${afterCode}${prefix}${body}`, number };
	});

describe('every spelling of a number is one canonical number', () => {
	test('the canonical number is the number written plainly', () => {
		fc.assert(
			fc.property(spelling, ({ written, number }) => {
				expect([written, canonicalPhoneNumber(written)]).toEqual([written, { number }]);
			}),
			propertyParameters(RUNS),
		);
	});

	test('the canonical form is its own canonical form', () => {
		fc.assert(
			fc.property(spelling, ({ written }) => {
				const once = canonicalPhoneNumber(written);
				if (!('number' in once)) throw new Error(`${written} was refused`);
				expect(canonicalPhoneNumber(once.number)).toEqual(once);
			}),
			propertyParameters(RUNS),
		);
	});

	test('an Allowed Destinations prefix of the number, written any way, starts the canonical number', () => {
		fc.assert(
			fc.property(
				spelling,
				fc.integer({ min: 1, max: 15 }),
				fc.boolean(),
				({ number }, length, trunkInBrackets) => {
					const example = examples.find(
						(candidate) => number === `+${candidate.code}${candidate.national}`,
					)!;
					const national = number.slice(1 + example.code.length);
					const kept = national.slice(0, Math.max(0, length - example.code.length));
					const trunk = trunkInBrackets && example.trunk ? ` (${example.trunk}) ` : ' ';
					const rule = canonicalPhoneNumber(`+${example.code}${trunk}${kept}`, 'prefix');
					expect(rule).toEqual({ number: `+${example.code}${kept}` });
					expect(number.startsWith((rule as { number: string }).number)).toBe(true);
				},
			),
			propertyParameters(RUNS),
		);
	});
});
