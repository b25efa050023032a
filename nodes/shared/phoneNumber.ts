import { callingCodes } from './phoneNumber.data';

/**
 * One spelling per person: the canonical E.164 form of a phone number, the one form that To, Allowed
 * Destinations, the call list's filter by number, the process's gate and the skip look-up compare. Without
 * it "+44 (0)20 7946 0123" and "+44 20 7946 0123" are two numbers to every check, and one person is phoned
 * twice.
 *
 * - Spaces, dots, dashes and brackets are dropped.
 * - A national prefix written after the calling code is read as libphonenumber parses a number written with
 *   its calling code (PhoneNumberUtil.parse, the rules of the code's main region, phoneNumber.data.ts): its
 *   national prefix for parsing ("0" in the UK, "0" or "8" in Lithuania, "0" or "80" in Belarus; Argentina's
 *   mobile "15" after the area code) is removed, or rewritten by the region's transform rule (the "15" becomes a
 *   9 before the area code), unless the number is a national number of the region with it and is none
 *   without it; and only when what is left has a possible length of the region's numbers. Where the region
 *   has none (Italy: "+39 06…"), every digit stays.
 * - A national prefix in brackets right after the calling code ("+44 (0)20…") says it is one: when the rules
 *   above keep it, it is removed all the same.
 * - What cannot be made canonical is refused: letters, unbalanced brackets, a "(0)" after a calling code
 *   without that national prefix, fewer than 7 or more than 15 digits.
 */
export type CanonicalNumber = { number: string } | { problem: string; hint?: string };

type Kind = 'number' | 'prefix';

/** What libphonenumber reads when it parses a number written with this calling code. */
interface CallingCode {
	trunk: string;
	lengths: number[];
	localOnly: number[];
	transform: string;
	parsing: RegExp | undefined;
	pattern: RegExp;
}

let codes: Map<string, CallingCode> | undefined;

const numbers = (text: string) => (text === '' ? [] : text.split(',').map(Number));

/** The calling codes, read from the generated data on the first number. */
function callingCodeTable(): Map<string, CallingCode> {
	codes ??= new Map(
		callingCodes.split('\n').map((row) => {
			const [code, trunk, lengths, localOnly, transform, parsing, pattern] = row.split(' ');
			const entry: CallingCode = {
				trunk,
				lengths: numbers(lengths),
				localOnly: numbers(localOnly),
				transform,
				parsing: parsing === '' ? undefined : new RegExp(`^(?:${parsing})`),
				pattern: new RegExp(`^(?:${pattern})$`),
			};
			return [code, entry];
		}),
	);
	return codes;
}

/** Calling codes are a prefix code (ITU-T E.164): at most one of the first 1 to 3 digits is one. */
function callingCodeOf(digits: string): [string, CallingCode] | undefined {
	const table = callingCodeTable();
	for (const length of [1, 2, 3]) {
		const code = table.get(digits.slice(0, length));
		if (code) return [digits.slice(0, length), code];
	}
	return undefined;
}

/**
 * Whether a national number has a possible length of the region, as libphonenumber's parse requires of a
 * number it removed a national prefix from: not shorter than its shortest, not a length only dialled
 * locally, and one of its lengths or longer than all of them.
 */
function possibleLength(national: string, { lengths, localOnly }: CallingCode): boolean {
	const length = national.length;
	if (localOnly.includes(length) || length < lengths[0]) return false;
	return length > lengths[lengths.length - 1] || lengths.includes(length);
}

/**
 * The national number with its national prefix removed or rewritten as libphonenumber's parse does it
 * (PhoneNumberUtil.maybeStripNationalPrefixAndCarrierCode, then its check of the length); unchanged where
 * the rules keep the prefix. A prefix (Allowed Destinations) is never read as a local number the rules
 * complete ("+261 22 12 345" is Madagascar's +261 20 22 12 345 as a number): it may be the start of another.
 */
function withoutNationalPrefix(national: string, code: CallingCode, kind: Kind): string {
	const found = code.parsing?.exec(national);
	if (!found) return national;
	const viable = code.pattern.test(national);
	const lastGroup = found[found.length - 1];
	const transformed = found.length > 1 && code.transform !== '' && lastGroup !== undefined;
	if (transformed && kind === 'prefix' && lastGroup === found[0]) return national;
	const result = transformed
		? national.replace(code.parsing as RegExp, code.transform)
		: national.slice(found[0].length);
	if (viable && !code.pattern.test(result)) return national;
	return possibleLength(result, code) ? result : national;
}

/** The problem of text that is no phone number at all. */
export const NOT_E164 = 'is not written in E.164 form';

const SEPARATORS = /[\s.-]/g;
const WRITTEN = /^\+(?:\d|\(\d+\))*$/;
const E164_HINT =
	'E.164: a plus sign, the country code and the number, 7 to 15 digits in all, without a leading zero.';

/**
 * How to write a number given without its country code ("(415) 555-0123", "020 7946 0123",
 * "0044 20 7946 0123"), or undefined when it is not one. What the error says in place of the bare rule:
 * a builder typing a national number wants to be told to add the country code, with an example.
 */
export function countryCodeAdvice(value: unknown): string | undefined {
	if (typeof value !== 'string' || !/^[\d\s().-]+$/.test(value)) return undefined;
	const digits = value.replace(/\D/g, '');
	if (digits.length < 7 || digits.length > 17) return undefined;
	if (digits.startsWith('00'))
		return `must start with + in place of 00, like "+${digits.slice(2)}"`;
	// Ten digits shaped like a North American number (area code and exchange do not start with 0 or 1),
	// or eleven with its country code 1 in front.
	const northAmerican = /^(1?)([2-9]\d\d)([2-9]\d\d)(\d{4})$/.exec(digits);
	if (northAmerican) {
		const [, one, area, exchange, line] = northAmerican;
		const written = `"+1 ${area} ${exchange} ${line}"`;
		return one
			? `must start with +: ${written}`
			: `must start with + and the country code: ${written} for the US or Canada`;
	}
	if (digits.startsWith('0')) {
		return 'must start with + and the country code, without the leading 0 (in the UK, 020 7946 0123 is +44 20 7946 0123)';
	}
	return 'must start with + and the country code, like +1 415 555 0123';
}

/**
 * The canonical form of a number (`kind: 'number'`) or of the start of one (`'prefix'`, Allowed
 * Destinations: read by the same rules, which remove a national prefix only from what has a possible length
 * of a whole number; a national prefix in brackets is removed from a shorter prefix too).
 */
export function canonicalPhoneNumber(value: unknown, kind: Kind = 'number'): CanonicalNumber {
	const written = typeof value === 'string' ? value.replace(SEPARATORS, '') : '';
	const digits = written.replace(/[()]/g, '');
	if (!WRITTEN.test(written) || !/^\+[1-9]/.test(digits)) {
		return { problem: NOT_E164, hint: E164_HINT };
	}
	let national = digits.slice(1);
	let callingCode = '';
	const found = callingCodeOf(national);
	if (found) {
		const [code, rules] = found;
		callingCode = code;
		national = national.slice(code.length);
		const stripped = withoutNationalPrefix(national, rules, kind);
		const bracket = written.startsWith(`+${code}(`)
			? /^\((\d+)\)/.exec(written.slice(code.length + 1))?.[1]
			: undefined;
		if (stripped !== national || bracket === undefined) national = stripped;
		else if (bracket === rules.trunk) {
			// A national prefix in brackets the rules kept, because the number is one with it, or what is
			// left is too short (a prefix): the brackets say the writer drops it from abroad.
			national = national.slice(bracket.length);
		} else if (/^0+$/.test(bracket)) {
			const trunk = rules.trunk === '' ? 'none' : `"${rules.trunk}"`;
			return {
				problem: `writes a national prefix "(${bracket})" after +${code}, where numbers have ${trunk}, so the number meant is unclear`,
				hint: `Write the number as it is dialled from abroad, without "(${bracket})".`,
			};
		}
	}
	const number = `+${callingCode}${national}`;
	const count = number.length - 1;
	if (count > 15 || (kind === 'number' && count < 7)) {
		return { problem: NOT_E164, hint: E164_HINT };
	}
	return { number };
}
