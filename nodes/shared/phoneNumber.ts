import { callingCodes } from './phoneNumber.data';

/**
 * One spelling per person: the canonical E.164 form of a phone number, the one form that To, Allowed
 * Destinations, the call list's filter by number, the process's gate and the skip look-up compare. Without
 * it "+44 (0)20 7946 0123" and "+44 20 7946 0123" are two numbers to every check, and one person is phoned
 * twice.
 *
 * - Spaces, dots and dashes are dropped; brackets too, except a trunk prefix in brackets right after the
 *   calling code.
 * - A national (trunk) prefix written after the calling code ("+44 (0)20…", "+49 (0)30…", "+33 (0)1…") is
 *   removed where the calling code has one (libphonenumber's `nationalPrefix`, phoneNumber.data.ts). Written
 *   without brackets ("+44 020…"), it is removed only when the number is not a national number of the code
 *   with it and is one without it, libphonenumber's own test. Where the code has none (Italy: "+39 06…"),
 *   every digit stays.
 * - What cannot be made canonical is refused: letters, unbalanced brackets, a "(0)" after a calling code
 *   without that national prefix, fewer than 7 or more than 15 digits.
 */
export type CanonicalNumber = { number: string } | { problem: string; hint?: string };

interface CallingCode {
	trunk: string;
	pattern: RegExp;
}

let codes: Map<string, CallingCode> | undefined;

/** The calling codes, read from the generated data on the first number. */
function callingCodeTable(): Map<string, CallingCode> {
	codes ??= new Map(
		callingCodes.split('\n').map((row) => {
			const [code, trunk, ...pattern] = row.split('|');
			return [code, { trunk, pattern: new RegExp(`^(?:${pattern.join('|')})$`) }];
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
 * Destinations: the trunk prefix in brackets is removed, one without brackets only from whole numbers).
 */
export function canonicalPhoneNumber(
	value: unknown,
	kind: 'number' | 'prefix' = 'number',
): CanonicalNumber {
	const written = typeof value === 'string' ? value.replace(SEPARATORS, '') : '';
	const digits = written.replace(/[()]/g, '');
	if (!WRITTEN.test(written) || !/^\+[1-9]/.test(digits)) {
		return { problem: NOT_E164, hint: E164_HINT };
	}
	let national = digits.slice(1);
	let callingCode = '';
	const found = callingCodeOf(national);
	if (found) {
		const [code, { trunk, pattern }] = found;
		callingCode = code;
		const bracket = written.startsWith(`+${code}(`)
			? /^\((\d+)\)/.exec(written.slice(code.length + 1))
			: null;
		national = national.slice(code.length);
		if (bracket && bracket[1] === trunk) national = national.slice(trunk.length);
		else if (bracket && /^0+$/.test(bracket[1])) {
			return {
				problem: `writes a national prefix "(${bracket[1]})" after +${code}, where numbers have ${trunk === '' ? 'none' : `"${trunk}"`}, so the number meant is unclear`,
				hint: `Write the number as it is dialled from abroad, without "(${bracket[1]})".`,
			};
		}
		const bareTrunk =
			kind === 'number' &&
			trunk !== '' &&
			national.startsWith(trunk) &&
			!pattern.test(national) &&
			pattern.test(national.slice(trunk.length));
		if (bareTrunk) national = national.slice(trunk.length);
	}
	const number = `+${callingCode}${national}`;
	const count = number.length - 1;
	if (count > 15 || (kind === 'number' && count < 7)) {
		return { problem: NOT_E164, hint: E164_HINT };
	}
	return { number };
}
