import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { canonicalPhoneNumber, NOT_E164 } from '../../../shared/phoneNumber';
import type { InputValidator } from '../../../shared/validation';

/** Call → Create's guard for workflows and AI models that choose whom to call. */
export const allowedDestinationsOption: INodeProperties = {
	displayName: 'Allowed Destinations',
	name: 'allowedDestinations',
	type: 'string',
	default: '',
	placeholder: 'e.g. +1415, +442071234567',
	description:
		'Phone numbers and prefixes in E.164, separated by commas. A call goes only to a number that starts with one of them; any other To fails before anything is sent. Empty: any number, except when the node is an AI tool: then nobody is called. Recommended whenever an AI model or outside data fills To.',
};

/** Set Context's guard: a context goes only into a live call with an allowed number. */
export const allowedContextDestinationsOption: INodeProperties = {
	...allowedDestinationsOption,
	description:
		"Phone numbers and prefixes in E.164, separated by commas. A context goes only into a call whose customer's number starts with one of them; any other call fails before the context is sent. Empty: any call, except when the node is an AI tool: then no call gets a context.",
};

/** Whether the node runs as an AI Agent's tool: n8n gives the tool variant a type ending in "Tool". */
export function runsAsTool(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** Whether a parameter as saved is filled by the AI model ($fromAI), which must never choose its own rules. */
function filledByModel(saved: unknown): boolean {
	return typeof saved === 'string' && saved.startsWith('=') && /\$fromai\s*\(/i.test(saved);
}

/** The rules as given (one string of comma-separated entries, or a list from an expression), canonical. */
function parseRules(validate: InputValidator, value: unknown): string[] {
	const field = allowedDestinationsOption.displayName;
	const entries =
		typeof value === 'string' ? value.split(/[,;\n]/) : validate.stringList(value, field);
	const rules: string[] = [];
	for (const entry of entries.map((text) => text.trim()).filter((text) => text !== '')) {
		const canonical = canonicalPhoneNumber(entry, 'prefix');
		if ('number' in canonical) rules.push(canonical.number);
		else if (canonical.problem === NOT_E164) {
			validate.fail(
				field,
				`must hold E.164 numbers or prefixes, like +1415 or +442071234567 (got ${JSON.stringify(entry)})`,
			);
		} else
			validate.fail(field, `${canonical.problem} (got ${JSON.stringify(entry)})`, canonical.hint);
	}
	return rules;
}

/** As an AI tool: the parameter as saved in the workflow, to tell rules from a model's choice. */
interface ToolUse {
	savedValue: unknown;
}

/** How the node runs: as an AI tool, with the saved Allowed Destinations of `options` (Create, Set Context). */
export function toolUseOf(context: IExecuteFunctions): ToolUse | undefined {
	if (!runsAsTool(context)) return undefined;
	const options = context.getNode().parameters.options as
		| { allowedDestinations?: unknown }
		| undefined;
	return { savedValue: options?.allowedDestinations };
}

/**
 * The rules, after the checks an AI tool needs before anything is sent: rules set by the workflow (not
 * by the model), and some at all. `target` names who was not contacted (a number, or a call).
 */
export function checkToolRules(
	validate: InputValidator,
	value: unknown,
	tool: ToolUse | undefined,
	target: string,
): string[] {
	if (tool && filledByModel(tool.savedValue)) {
		validate.fail(
			allowedDestinationsOption.displayName,
			`must not be filled by the AI model ($fromAI): ${target} was not contacted`,
			'The numbers an AI tool may reach are set in the node by the workflow, never chosen by the model.',
		);
	}
	const rules = parseRules(validate, value ?? '');
	if (tool && rules.length === 0) {
		validate.fail(
			allowedDestinationsOption.displayName,
			`are empty: as an AI tool this node contacts only numbers listed there, so ${target} was not contacted`,
			'Set Allowed Destinations (Options) in the node to the numbers or prefixes the AI model may reach.',
		);
	}
	return rules;
}

/** How a refusal is worded: the field holding the number, and what did not happen. */
export interface Refusal {
	field: string;
	outcome: string;
	where: string;
}

/**
 * Fails unless `to`, made canonical, starts with one of the allowed destinations (canonical too). No rules allow any number,
 * except for an AI tool: it fails closed, and so do rules the model fills in.
 */
export function checkAllowedDestination(
	validate: InputValidator,
	to: string,
	value: unknown,
	tool: ToolUse | undefined,
	refused: Refusal,
): void {
	const rules = checkToolRules(validate, value, tool, to);
	if (rules.length === 0) return;
	// Both sides canonical: a number the service writes in another spelling is compared as the same person.
	const canonical = canonicalPhoneNumber(to);
	if ('number' in canonical && rules.some((rule) => canonical.number.startsWith(rule))) return;
	validate.fail(
		`${refused.field} ${to}`,
		`is not among the Allowed Destinations (${rules.join(', ')}): ${refused.outcome}`,
		`Only numbers that start with one of the Allowed Destinations (${refused.where}) are reached.`,
	);
}
