/**
 * One person is one number, as libphonenumber reads it: the canonical form of a spelling is the E.164 number
 * libphonenumber's own parser (PhoneNumberUtil.parse) makes of it, asked apart from the package's code and
 * data through awesome-phonenumber 7.8.0 (libphonenumber v9.0.24's parser and metadata; the package reads
 * v9.0.35's metadata). The spellings: every region's example numbers (the oracle's example of every number
 * type in each of its 245 regions, and every example of the vendored metadata: 1,137 numbers) written with the
 * calling code, then each national prefix the code's main region's `nationalPrefixForParsing` accepts (drawn
 * from that pattern with fast-check; for a prefix its `nationalPrefixTransformRule` rewrites, with the digits
 * that rewrite back to the example: Argentina's "11 15" before a mobile's last eight digits, San Marino's six
 * local digits), bare and, where it is a national prefix on its own, in brackets; then (drawn) with spaces,
 * dashes and dots, and numbers drawn from those patterns followed by an example's digits. Compared wherever the
 * oracle says the number is valid.
 *
 * Where the metadata versions differ, and where the package knowingly reads otherwise, the tests say so:
 * - both versions give every region the same national prefix, national prefix for parsing and transform rule
 *   (compared region by region when this suite was written); their patterns differ: the examples of
 *   Guadeloupe, Saint Barthélemy, Saint Martin (+590 8…) and French Guiana (+594 8…) are new in v9.0.35, and
 *   the oracle says they are not valid: not compared;
 * - the oracle has no metadata for the non-geographic codes (+800, +808, +870, +878, +881, +882, +883, +888,
 *   +979; none has a national prefix): not compared;
 * - Canada's 7-digit example written "+1 1 310 1234" (libphonenumber keeps the 1: 7 digits are dialled only
 *   locally) and Colombia's mobile written "+57 0 321 123 4567" (it reads "03" as a carrier code, and what is
 *   left is too short, so it keeps every digit): both give the same digits, which the oracle says are not valid;
 * - a national prefix in brackets after the calling code is removed even where libphonenumber's rules keep
 *   it: "+1 (1) 310 1234", "+57 (0) 321 123 4567"; only numbers the oracle says are not valid meet this;
 * - Iran's +98 9601 (6 digits) is valid to libphonenumber; the package refuses numbers under 7 digits, and
 *   over 15 (Japan's valid 16-digit +81 0037 68…): drawn numbers are compared from 7 to 15 digits.
 *
 * `npm test`: the sweep (about 6,500 spellings, 245 regions, 4,200 of them an example written with a national prefix)
 * and 200 and 400 drawn spellings, about 3 s; `npm run test:properties` draws from a new seed, as many for each
 * as VOICE_AGENT_PROPERTY_RUNS says (200 by default; 20,000 each took about 30 s).
 */
import { getExample, getSupportedRegionCodes, parsePhoneNumber } from 'awesome-phonenumber';
import fc from 'fast-check';

import { canonicalPhoneNumber } from '../../../nodes/shared/phoneNumber';
import { examples as metadataExamples, mainRegionOf } from '../../support/phoneMetadata.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { EXAMPLE_TYPES } from '../../support/phoneTypes.cts';

const RUNS = 200;

// --- The oracle: libphonenumber's parser and its metadata, nothing of the package. ---

/** libphonenumber's E.164 form of a written number, and whether it says the number is valid. */
function oracle(written: string): { e164?: string; valid: boolean } {
	const parsed = parsePhoneNumber(written);
	return { e164: parsed.number?.e164, valid: parsed.valid };
}

interface Example {
	region: string;
	code: string;
	national: string;
}

function oracleExamples(): Example[] {
	const found: Example[] = [];
	for (const region of getSupportedRegionCodes()) {
		for (const type of EXAMPLE_TYPES) {
			let example: ReturnType<typeof getExample> | undefined;
			try {
				example = getExample(region, type);
			} catch {
				example = undefined; // no example of that type in that region
			}
			if (!example?.valid) continue;
			const code = String(example.countryCode);
			found.push({ region, code, national: example.number.e164.slice(1 + code.length) });
		}
	}
	return found;
}

const examples: Example[] = [
	...new Map(
		[
			...oracleExamples(),
			...metadataExamples.map(({ id, code, national }) => ({ region: id, code, national })),
		].map((example) => [`${example.region}+${example.code}${example.national}`, example]),
	).values(),
];

// --- Spellings: each national prefix the calling code's main region accepts. ---

const prefixTextsByCode = new Map<string, string[]>();

/** Texts the code's national prefix for parsing accepts on their own, drawn from its pattern. */
function prefixTexts(code: string): string[] {
	let texts = prefixTextsByCode.get(code);
	if (texts) return texts;
	const { parsing } = mainRegionOf(code);
	const drawn =
		parsing === ''
			? []
			: fc.sample(fc.stringMatching(new RegExp(`^(?:${parsing})$`)), { numRuns: 400, seed: 41 });
	texts = [...new Set(drawn)].filter((text) => text !== '');
	prefixTextsByCode.set(code, texts);
	return texts;
}

interface Spelling {
	/** The national prefix (with a carrier code, or rewritten) written before the rest of the digits. */
	prefix: string;
	rest: string;
	/** A national prefix on its own (no carrier code, nothing rewritten): a writer may put it in brackets. */
	plain: boolean;
}

const spellingsByExample = new Map<Example, Spelling[]>();

/**
 * The example written with each prefix text: before its digits; or, for a text libphonenumber rewrites
 * ("0 2966 15" in Argentina, where the 15 becomes a 9 before the area code), with the group the rule keeps
 * taken from the example's own digits, wherever the rule then gives the example back.
 */
function spellingsOf(example: Example): Spelling[] {
	let spellings = spellingsByExample.get(example);
	if (spellings) return spellings;
	const { code, national } = example;
	const { parsing, transform } = mainRegionOf(code);
	const whole = new RegExp(`^(?:${parsing})$`, 'd');
	const start = new RegExp(`^(?:${parsing})`);
	const rule = /^(\d*)\$(\d)(\d*)$/.exec(transform);
	const found = new Map<string, Spelling>();
	for (const text of prefixTexts(code)) {
		const match = whole.exec(text)!;
		const groups = match.slice(1);
		if (rule === null || groups.length === 0 || match[match.length - 1] === undefined) {
			const plain = groups.every((group) => group === undefined);
			found.set(text, { prefix: text, rest: national, plain });
			continue;
		}
		const [, before, group, after] = rule;
		const span = match.indices![Number(group)];
		if (!span || !national.startsWith(before) || !national.endsWith(after)) continue;
		const kept = national.slice(before.length, national.length - after.length);
		for (let length = 1; length <= kept.length; length++) {
			const prefix = text.slice(0, span[0]) + kept.slice(0, length) + text.slice(span[1]);
			const rest = kept.slice(length);
			const read = start.exec(prefix + rest);
			if (!read || read[read.length - 1] === undefined) continue;
			if ((prefix + rest).replace(start, transform) !== national) continue;
			found.set(`${prefix}|${rest}`, { prefix, rest, plain: false });
		}
	}
	spellings = [...found.values()];
	spellingsByExample.set(example, spellings);
	return spellings;
}

/** Digits with a separator drawn before each. */
const spaced = (digits: string, separators: string[]) =>
	[...digits]
		.map((digit, n) => `${n === 0 ? '' : separators[n % separators.length]}${digit}`)
		.join('');

/** 7 to 15 digits: what the package (and the service) takes for a phone number at all. */
const isE164Length = (e164: string) => e164.length >= 8 && e164.length <= 16;

/** What the package makes of a spelling, as the oracle writes it. */
function packageReading(written: string, kind: 'number' | 'prefix' = 'number'): string {
	const canonical = canonicalPhoneNumber(written, kind);
	return 'number' in canonical ? canonical.number : `refused: ${canonical.problem}`;
}

/**
 * What an Allowed Destinations entry written this way is: the number libphonenumber reads, but where it read
 * the digits as a local number and completed them (its number ends with every digit written after the
 * calling code, and has more: Madagascar's "22 12 345" is +261 20 22 12 345), the digits as written, for a
 * prefix may be the start of a longer number.
 */
function asAllowedDestination(written: string, e164: string): string {
	const digits = `+${written.replace(/\D/g, '')}`;
	const code = String(parsePhoneNumber(e164).countryCode);
	const completed = e164.length > digits.length && e164.endsWith(digits.slice(1 + code.length));
	return completed ? digits : e164;
}

// --- The checks. ---

describe('every spelling of every region is the number libphonenumber reads', () => {
	test('the oracle reads the four spellings of the issue as one number each, as the package does', () => {
		for (const [written, number] of [
			['+370 8 612 34567', '+37061234567'],
			['+375 8029 123 45 67', '+375291234567'],
			['+54 11 15 2345-6789', '+5491123456789'],
			['+241 0 11 23 45 67', '+24111234567'],
		]) {
			expect([written, oracle(written)]).toEqual([written, { e164: number, valid: true }]);
			expect([written, packageReading(written)]).toEqual([written, number]);
		}
	});

	test('every example, written plainly and with each national prefix its calling code accepts, bare and in brackets', () => {
		const differences: string[] = [];
		const notCompared = new Set<string>();
		const regions = new Set<string>();
		let compared = 0;
		let merged = 0;
		for (const example of examples) {
			const number = `+${example.code}${example.national}`;
			const writings = [number, `+${example.code} ${example.national}`];
			for (const { prefix, rest, plain } of spellingsOf(example)) {
				writings.push(`+${example.code} ${prefix} ${rest}`);
				if (plain) writings.push(`+${example.code} (${prefix}) ${rest}`);
			}
			for (const written of writings) {
				const read = oracle(written);
				const got = packageReading(written);
				if (read.valid) {
					compared++;
					regions.add(example.region);
					if (read.e164 === number && written.length > number.length + 1) merged++;
					if (got !== read.e164)
						differences.push(`${written}: ${got}, libphonenumber ${read.e164}`);
				} else if (read.e164 === undefined) notCompared.add(`+${example.code}`);
				else if (got !== read.e164) {
					// Not valid to the oracle: the digits are the same, but for a national prefix in brackets.
					expect([written, got]).toEqual([written, expect.any(String)]);
					expect(written).toMatch(/^\+\d+ \(\d+\) /);
					notCompared.add(`${example.region} ${written}`);
				} else notCompared.add(example.region);
			}
		}
		expect(differences).toEqual([
			'+989601: refused: is not written in E.164 form, libphonenumber +989601',
			'+98 9601: refused: is not written in E.164 form, libphonenumber +989601',
			'+98 0 9601: refused: is not written in E.164 form, libphonenumber +989601',
			'+98 (0) 9601: refused: is not written in E.164 form, libphonenumber +989601',
		]);
		expect([...notCompared].sort()).toEqual([
			'+800',
			'+808',
			'+870',
			'+878',
			'+881',
			'+882',
			'+883',
			'+888',
			'+979',
			'BL',
			'CA',
			'CA +1 (1) 3101234',
			'CO',
			'CO +57 (0) 3211234567',
			'GF',
			'GP',
			'MF',
		]);
		expect(regions.size).toBeGreaterThanOrEqual(245);
		expect(compared).toBeGreaterThan(6_000);
		expect(merged).toBeGreaterThan(4_000);
	});

	test('each rewriting national prefix has spellings of its own (Argentina, San Marino, Madagascar, Norfolk Island, Brazil)', () => {
		const rewritten = (code: string) =>
			examples
				.filter((example) => example.code === code)
				.flatMap((example) => spellingsOf(example).filter(({ plain }) => !plain));
		for (const code of ['54', '378', '261', '672', '55'])
			expect([code, rewritten(code).length > 0]).toEqual([code, true]);
	});
});

/** An example written one way: its digits with separators, a national prefix it accepts or none. */
const exampleSpelling = fc
	.record({
		example: fc.constantFrom(...examples),
		choice: fc.nat(),
		bracketed: fc.boolean(),
		separators: fc.array(fc.constantFrom('', ' ', '-', '.', ' - '), { minLength: 1, maxLength: 4 }),
		afterCode: fc.constantFrom('', ' ', '-'),
	})
	.map(({ example, choice, bracketed, separators, afterCode }) => {
		const spellings = spellingsOf(example);
		const spelling = spellings[choice % (spellings.length + 1)];
		if (!spelling) return `+${example.code}${afterCode}${spaced(example.national, separators)}`;
		const prefix =
			spelling.plain && bracketed
				? `(${spelling.prefix}) `
				: `${spaced(spelling.prefix, separators)} `;
		return `+${example.code}${afterCode}${prefix}${spaced(spelling.rest, separators)}`;
	});

const codesWithParsing = [...new Set(examples.map(({ code }) => code))].filter(
	(code) => mainRegionOf(code).parsing !== '',
);

/**
 * A number drawn around a calling code's examples: a text its national prefix for parsing accepts, then the
 * end of one of its examples (rewriting prefixes such as Argentina's "11 15" or Gabon's "0 11…" take part of
 * the number into the prefix), its last digits perhaps drawn anew.
 */
const drawnSpelling = fc.constantFrom(...codesWithParsing).chain((code) =>
	fc
		.record({
			prefix: fc.stringMatching(new RegExp(`^(?:${mainRegionOf(code).parsing})$`)),
			example: fc.constantFrom(...examples.filter((example) => example.code === code)),
			from: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, fc.nat({ max: 12 })),
			tail: fc.stringMatching(/^\d{0,4}$/),
		})
		.map(({ prefix, example: { national }, from, tail }) => {
			const digits = national.slice(Math.min(from, national.length));
			return `+${code} ${prefix} ${digits.slice(0, Math.max(0, digits.length - tail.length))}${tail}`;
		}),
);

describe('drawn spellings (fast-check)', () => {
	test(
		'an example written any way: the number libphonenumber reads, its own canonical form, and so in Allowed Destinations',
		() => {
			fc.assert(
				fc.property(exampleSpelling, (written) => {
					const read = oracle(written);
					fc.pre(read.valid && isE164Length(read.e164!));
					expect([written, packageReading(written)]).toEqual([written, read.e164]);
					expect(packageReading(read.e164!)).toBe(read.e164);
					expect([written, packageReading(written, 'prefix')]).toEqual([
						written,
						asAllowedDestination(written, read.e164!),
					]);
				}),
				propertyParameters(RUNS),
			);
		},
		propertyTimeout(RUNS, 20),
	);

	test(
		'a number drawn from a national prefix pattern: where libphonenumber says it is valid, the number it reads',
		() => {
			let valid = 0;
			fc.assert(
				fc.property(drawnSpelling, (written) => {
					const read = oracle(written);
					if (!read.valid || !isE164Length(read.e164!)) return;
					valid++;
					expect([written, packageReading(written)]).toEqual([written, read.e164]);
					expect(packageReading(read.e164!)).toBe(read.e164);
				}),
				propertyParameters(RUNS * 2),
			);
			// Most drawn numbers are valid ones (about three in four): the property is not checking nothing.
			expect(valid).toBeGreaterThan(propertyParameters(RUNS * 2).numRuns! / 2);
		},
		propertyTimeout(RUNS * 2, 20),
	);
});
