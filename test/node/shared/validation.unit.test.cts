/** InputValidator: the checks that run before any request, with the field and item in every message. */
import { NodeOperationError } from 'n8n-workflow';

import { InputValidator, isPlainObject } from '../../../nodes/shared/validation';
import { stubNode } from '../../support/stubNode.cts';

const node = stubNode();
const validate = new InputValidator(node, 3);

/** The error a check throws, or fails the test when it throws none. */
function errorOf(check: () => unknown): NodeOperationError {
	try {
		check();
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error('the check passed');
}

describe('every failure names the field and the item', () => {
	test('message, item index and description', () => {
		const error = errorOf(() => validate.e164('12', 'To'));
		expect(error.message).toBe(
			'To must be a phone number in E.164 form, like +14155550123 (got "12") [item 3]',
		);
		expect(error.context.itemIndex).toBe(3);
		expect(error.description).toMatch(/^E\.164: a plus sign/);
		expect(error.node).toBe(node);
	});
});

describe('e164', () => {
	test.each([
		['+14155550123', '+14155550123'],
		['+1 (415) 555-0123', '+14155550123'],
		['+44.20.7123.4567', '+442071234567'],
		['+1234567', '+1234567'],
		['+123456789012345', '+123456789012345'],
	])('%j is %j', (value, expected) => {
		expect(validate.e164(value, 'To')).toBe(expected);
	});

	test.each<[unknown]>([
		['+0123456789'],
		['+123456'],
		['+1234567890123456'],
		['+1415555012a'],
		[''],
		[14155550123],
		[null],
		[undefined],
	])('%j is refused', (value) => {
		expect(errorOf(() => validate.e164(value, 'Voicemail Number')).message).toMatch(
			/^Voicemail Number must be a phone number in E\.164 form/,
		);
	});
});

describe('a number written without its country code: the error says how to write it', () => {
	test.each<[string, string]>([
		// Ten digits shaped like a North American number: the +1 form, grouped as people write it.
		[
			'(415) 555-0123',
			'must start with + and the country code: "+1 415 555 0123" for the US or Canada',
		],
		[
			'415.555.0123',
			'must start with + and the country code: "+1 415 555 0123" for the US or Canada',
		],
		// An international call prefix: + in its place.
		['0044 20 7946 0123', 'must start with + in place of 00, like "+442079460123"'],
		// A national number with its trunk 0.
		[
			'020 7946 0123',
			'must start with + and the country code, without the leading 0 (in the UK, 020 7946 0123 is +44 20 7946 0123)',
		],
		['555-0123', 'must start with + and the country code, like +1 415 555 0123'],
		// Its country code 1 typed, the + left out.
		['1 415 555 0123', 'must start with +: "+1 415 555 0123"'],
		// Too few digits to be a number: the plain rule.
		['12345', 'must be a phone number in E.164 form, like +14155550123'],
	])('%j', (value, rule) => {
		expect(errorOf(() => validate.e164(value, 'To')).message).toBe(
			`To ${rule} (got ${JSON.stringify(value)}) [item 3]`,
		);
	});

	test('what the advice suggests is a number the node takes', () => {
		expect(validate.e164('+1 415 555 0123', 'To')).toBe('+14155550123');
		expect(validate.e164('+442079460123', 'To')).toBe('+442079460123');
		expect(validate.e164('+44 20 7946 0123', 'To')).toBe('+442079460123');
	});
});

describe('integer', () => {
	test('whole numbers in range, also from numeric text', () => {
		expect(validate.integer(0, 'Voice Optimization', 0, 4)).toBe(0);
		expect(validate.integer(4, 'Voice Optimization', 0, 4)).toBe(4);
		expect(validate.integer('3', 'Voice Optimization', 0, 4)).toBe(3);
		expect(validate.integer(100000, 'Endpointing (Ms)', 0)).toBe(100000);
	});

	test.each<[unknown, string]>([
		[5, 'must be a whole number from 0 to 4 (got 5)'],
		[-1, 'must be a whole number from 0 to 4 (got -1)'],
		[2.5, 'must be a whole number from 0 to 4 (got 2.5)'],
		['', 'must be a whole number from 0 to 4 (got "")'],
		['two', 'must be a whole number from 0 to 4 (got "two")'],
		[null, 'must be a whole number from 0 to 4 (got null)'],
	])('%j is refused', (value, problem) => {
		expect(errorOf(() => validate.integer(value, 'Voice Optimization', 0, 4)).message).toBe(
			`Voice Optimization ${problem} [item 3]`,
		);
	});

	test('NaN is refused', () => {
		expect(errorOf(() => validate.integer(Number.NaN, 'Voice Optimization', 0, 4)).message).toMatch(
			/^Voice Optimization must be a whole number from 0 to 4 /,
		);
	});

	test('without a maximum the message says "or more"', () => {
		expect(errorOf(() => validate.integer(0, 'Limit', 1)).message).toBe(
			'Limit must be a whole number 1 or more (got 0) [item 3]',
		);
	});
});

describe('nonEmptyString', () => {
	test('trims, and accepts a number as text', () => {
		expect(validate.nonEmptyString('  call_1 ', 'Call ID')).toBe('call_1');
		expect(validate.nonEmptyString(42, 'Call ID')).toBe('42');
	});

	test.each<[unknown]>([[''], ['   '], [null], [undefined]])('%j is empty', (value) => {
		expect(errorOf(() => validate.nonEmptyString(value, 'Name')).message).toBe(
			'Name must not be empty [item 3]',
		);
	});
});

describe('jsonArrayOfObjects', () => {
	const tool = { type: 'function', function: { name: 'f', parameters: {} } };

	test('JSON text or an array from an expression; empty text is an empty list', () => {
		expect(validate.jsonArrayOfObjects(JSON.stringify([tool]), 'Tools (JSON)')).toEqual([tool]);
		expect(validate.jsonArrayOfObjects([tool], 'Tools (JSON)')).toEqual([tool]);
		expect(validate.jsonArrayOfObjects('[]', 'Tools (JSON)')).toEqual([]);
		expect(validate.jsonArrayOfObjects('  ', 'Tools (JSON)')).toEqual([]);
	});

	test('text that is not JSON names the parse problem', () => {
		expect(errorOf(() => validate.jsonArrayOfObjects('[{', 'Tools (JSON)')).message).toMatch(
			/^Tools \(JSON\) is not valid JSON: .+ \[item 3\]$/,
		);
	});

	test.each<[unknown]>([
		['{"a": 1}'],
		['[1]'],
		['[null]'],
		['[[]]'],
		['"text"'],
		[{ a: 1 }],
		[[tool, 'x']],
		[5],
	])('%j is not an array of objects', (value) => {
		expect(errorOf(() => validate.jsonArrayOfObjects(value, 'Tools (JSON)')).message).toMatch(
			/^Tools \(JSON\) must be a JSON array of objects/,
		);
	});
});

describe('stringList', () => {
	test('comma-separated words, trimmed, empty ones dropped', () => {
		expect(validate.stringList(' um, well ,, let me see ,', 'Filler Words Whitelist')).toEqual([
			'um',
			'well',
			'let me see',
		]);
		expect(validate.stringList('', 'Filler Words Whitelist')).toEqual([]);
		expect(validate.stringList([' hmm ', '', 'right'], 'Filler Words Whitelist')).toEqual([
			'hmm',
			'right',
		]);
	});

	test('anything else is refused', () => {
		expect(errorOf(() => validate.stringList(['a', 1], 'Filler Words Whitelist')).message).toBe(
			'Filler Words Whitelist must be a list of words [item 3]',
		);
		expect(errorOf(() => validate.stringList(7, 'Filler Words Whitelist')).message).toBe(
			'Filler Words Whitelist must be words separated by commas [item 3]',
		);
	});
});

describe('urlOrEmpty, areaCode, oneOf', () => {
	test('URLs', () => {
		expect(validate.urlOrEmpty('', 'Webhook URL')).toBe('');
		expect(validate.urlOrEmpty(' https://example.com/hook?token=abc ', 'Webhook URL')).toBe(
			'https://example.com/hook?token=abc',
		);
		expect(validate.urlOrEmpty('http://127.0.0.1:5678/webhook', 'Webhook URL')).toBe(
			'http://127.0.0.1:5678/webhook',
		);
		for (const bad of [
			'example.com',
			'ftp://example.com',
			'http:///path',
			'https://exa mple.com',
		]) {
			expect(errorOf(() => validate.urlOrEmpty(bad, 'Webhook URL')).message).toMatch(
				/^Webhook URL must be an http:\/\/ or https:\/\/ URL/,
			);
		}
	});

	test('area codes', () => {
		expect(validate.areaCode('415', 'Area Code')).toBe('415');
		expect(validate.areaCode(' 212 ', 'Area Code')).toBe('212');
		expect(validate.areaCode(312, 'Area Code')).toBe('312');
		for (const bad of ['41', '4155', 'abc', '', 41.5, null]) {
			expect(errorOf(() => validate.areaCode(bad, 'Area Code')).message).toMatch(
				/^Area Code must be 3 digits, like 415/,
			);
		}
	});

	test('allowed values', () => {
		expect(validate.oneOf('gpt-4o', 'LLM Model', ['gpt-4o', 'service-voice'])).toBe('gpt-4o');
		expect(
			errorOf(() => validate.oneOf('gpt-3.5-turbo', 'LLM Model', ['gpt-4o', 'service-voice']))
				.message,
		).toBe('LLM Model must be one of gpt-4o, service-voice (got "gpt-3.5-turbo") [item 3]');
	});
});

test('isPlainObject', () => {
	expect(isPlainObject({})).toBe(true);
	expect(isPlainObject({ a: 1 })).toBe(true);
	expect(isPlainObject([])).toBe(false);
	expect(isPlainObject(null)).toBe(false);
	expect(isPlainObject('x')).toBe(false);
});
