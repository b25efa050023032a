import type { INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../../../shared/validation';

/** Call → Create's guard for workflows and AI models that choose whom to call. */
export const allowedDestinationsOption: INodeProperties = {
	displayName: 'Allowed Destinations',
	name: 'allowedDestinations',
	type: 'string',
	default: '',
	placeholder: 'e.g. +1415, +442071234567',
	description:
		'Phone numbers and prefixes in E.164, separated by commas. A call goes only to a number that starts with one of them; any other To fails before anything is sent. Empty: any number. Recommended whenever an AI model or outside data fills To.',
};

const SEPARATORS = /[\s().-]/g;

/** The rules as given: one string of comma-separated entries, or a list from an expression. */
function parseRules(validate: InputValidator, value: unknown): string[] {
	const field = 'Allowed Destinations';
	const entries =
		typeof value === 'string' ? value.split(/[,;\n]/) : validate.stringList(value, field);
	const rules = entries.map((entry) => entry.replace(SEPARATORS, '')).filter((rule) => rule !== '');
	for (const rule of rules) {
		if (!/^\+[1-9]\d{0,14}$/.test(rule)) {
			validate.fail(
				field,
				`must hold E.164 numbers or prefixes, like +1415 or +442071234567 (got ${JSON.stringify(rule)})`,
			);
		}
	}
	return rules;
}

/** Fails unless `to` (E.164) starts with one of the allowed destinations; no rules allow any number. */
export function checkAllowedDestination(
	validate: InputValidator,
	to: string,
	value: unknown,
): void {
	const rules = parseRules(validate, value ?? '');
	if (rules.length === 0 || rules.some((rule) => to.startsWith(rule))) return;
	validate.fail(
		`To ${to}`,
		`is not among the Allowed Destinations (${rules.join(', ')}): no call was placed`,
		'Only numbers that start with one of the Allowed Destinations (Call → Create → Options) are called.',
	);
}
