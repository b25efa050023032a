import type { IDataObject, INode } from 'n8n-workflow';

import { MAX_URL_LENGTH, parseHttpUrl } from './baseUrl';
import { configurationError } from './errors';
import { fieldName, type FieldLabels } from './fields';
import { canonicalPhoneNumber, countryCodeAdvice, NOT_E164 } from './phoneNumber';

/**
 * Bounds the nodes enforce before sending: the service states none, and without them an oversized
 * value comes back as a 413 that names no field, or as a dropped connection that looks like a network
 * failure.
 */
export const INPUT_LIMITS = Object.freeze({
	/** Agent and call IDs. */
	idLength: 256,
	/** Agent, action and compliance check names. */
	nameLength: 256,
	/** Prompts, messages, contexts, instructions. */
	textLength: 100_000,
	/** A whole JSON request body, in bytes. */
	bodyBytes: 1_048_576,
});

const formatCount = (n: number) => n.toLocaleString('en-US');

/**
 * Checks of user input that run before any request is sent, so that a mistake in one item is
 * reported with the field and the item it came from, and nothing reaches the service.
 */
export class InputValidator {
	constructor(
		private readonly node: INode,
		/** The input item; none for a trigger's parameters. */
		private readonly itemIndex?: number,
	) {}

	fail(field: string, problem: string, description?: string): never {
		const where = this.itemIndex === undefined ? '' : ` [item ${this.itemIndex}]`;
		const message = `${field} ${problem}${where}`;
		throw configurationError(this.node, { message, description, itemIndex: this.itemIndex });
	}

	/** Text of at most `max` characters (numbers from expressions are taken as text). */
	text(value: unknown, field: string, max: number = INPUT_LIMITS.textLength): string {
		if (
			value !== undefined &&
			value !== null &&
			typeof value !== 'string' &&
			typeof value !== 'number'
		) {
			this.fail(field, `must be text (got ${typeof value})`);
		}
		const text = value === undefined || value === null ? '' : String(value);
		if (text.length > max) {
			this.fail(
				field,
				`must be at most ${formatCount(max)} characters (got ${formatCount(text.length)})`,
			);
		}
		return text;
	}

	nonEmptyString(value: unknown, field: string, max: number = INPUT_LIMITS.textLength): string {
		const text = this.text(value, field, max).trim();
		if (text === '') this.fail(field, 'must not be empty');
		return text;
	}

	/** An agent or call ID: not empty, no spaces or control characters, at most 256 characters. */
	id(value: unknown, field: string): string {
		const text = this.nonEmptyString(value, field, INPUT_LIMITS.idLength);
		if (/[\s\p{Cc}]/u.test(text)) {
			this.fail(field, `must be an ID without spaces (got ${JSON.stringify(text.slice(0, 40))})`);
		}
		return text;
	}

	/** A request body the service accepts by size; otherwise the error names its largest field. */
	requestBody<T extends IDataObject>(body: T, labels: FieldLabels = {}): T {
		const bytes = Buffer.byteLength(JSON.stringify(body), 'utf8');
		if (bytes <= INPUT_LIMITS.bodyBytes) return body;
		let largest = '';
		let largestBytes = -1;
		for (const [key, value] of Object.entries(body)) {
			const size = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
			if (size > largestBytes) [largest, largestBytes] = [key, size];
		}
		return this.fail(
			'The request',
			`would be ${formatCount(bytes)} bytes, more than the ${formatCount(INPUT_LIMITS.bodyBytes)} the service accepts; its largest field is ${fieldName(labels, largest)}`,
		);
	}

	/** A phone number in its one canonical E.164 form (phoneNumber.ts), or the item fails naming the field. */
	e164(value: unknown, field: string): string {
		const canonical = canonicalPhoneNumber(value);
		if ('number' in canonical) return canonical.number;
		const got = JSON.stringify(value);
		if (canonical.problem === NOT_E164) {
			const rule =
				countryCodeAdvice(value) ?? 'must be a phone number in E.164 form, like +14155550123';
			this.fail(field, `${rule} (got ${got})`, canonical.hint);
		}
		return this.fail(field, `${canonical.problem} (got ${got})`, canonical.hint);
	}

	integer(value: unknown, field: string, min: number, max?: number): number {
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		const range = max === undefined ? `${min} or more` : `from ${min} to ${max}`;
		if (
			typeof number !== 'number' ||
			!Number.isInteger(number) ||
			number < min ||
			(max !== undefined && number > max)
		) {
			this.fail(field, `must be a whole number ${range} (got ${JSON.stringify(value)})`);
		}
		return number;
	}

	oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
		if (typeof value !== 'string' || !allowed.includes(value as T)) {
			this.fail(field, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
		}
		return value as T;
	}

	/** A JSON array of objects, given as JSON text or already as an array (from an expression). */
	jsonArrayOfObjects(value: unknown, field: string): IDataObject[] {
		let parsed: unknown = value;
		if (typeof value === 'string') {
			if (value.trim() === '') return [];
			try {
				parsed = JSON.parse(value);
			} catch (error) {
				this.fail(field, `is not valid JSON: ${(error as Error).message}`);
			}
		}
		if (!Array.isArray(parsed) || parsed.some((entry) => !isPlainObject(entry))) {
			this.fail(
				field,
				'must be a JSON array of objects, like [{"type": "function", "function": {...}}]',
			);
		}
		return parsed as IDataObject[];
	}

	/** Words separated by commas, or an array of strings from an expression. */
	stringList(value: unknown, field: string): string[] {
		if (Array.isArray(value)) {
			if (value.some((entry) => typeof entry !== 'string'))
				this.fail(field, 'must be a list of words');
			return (value as string[]).map((entry) => entry.trim()).filter((entry) => entry !== '');
		}
		if (typeof value !== 'string') this.fail(field, 'must be words separated by commas');
		return value
			.split(',')
			.map((entry) => entry.trim())
			.filter((entry) => entry !== '');
	}

	/** An http(s) URL of at most 2,048 characters, or empty to clear; checked in linear time. */
	urlOrEmpty(value: unknown, field: string): string {
		const text = typeof value === 'string' ? value.trim() : '';
		if (text.length > MAX_URL_LENGTH) {
			this.fail(
				field,
				`must be at most ${formatCount(MAX_URL_LENGTH)} characters (got ${formatCount(text.length)})`,
			);
		}
		if (text !== '' && !parseHttpUrl(text)) {
			this.fail(field, `must be an http:// or https:// URL (got ${JSON.stringify(value)})`);
		}
		return text;
	}

	areaCode(value: unknown, field: string): string {
		const text =
			typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
		if (!/^\d{3}$/.test(text))
			this.fail(field, `must be 3 digits, like 415 (got ${JSON.stringify(value)})`);
		return text;
	}
}

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
