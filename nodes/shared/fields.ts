import type { INodeProperties } from 'n8n-workflow';

/**
 * The API's fields by the labels the nodes show for them, so that the node's own checks and the
 * service's 400 answers name a field the same way: its label, with the API field in brackets only
 * where the label does not already say it ("Agent (agent_id)", but "Webhook URL").
 */
export type FieldLabels = Readonly<Record<string, string>>;

/**
 * The labels of a request body's fields, read from the parameters that fill them, so that each label
 * is stated once, in its parameter. `fills` gives each API field (`list[].field` for the fields of a
 * list's items) the path of its parameter, e.g. `additionalFields.actions.action.forwardingNumber`.
 */
export function labelsOf(
	properties: readonly INodeProperties[],
	fills: Readonly<Record<string, string>>,
): FieldLabels {
	const labels: Record<string, string> = {};
	for (const [field, path] of Object.entries(fills)) {
		const label = displayNameAt(properties, path.split('.'));
		if (label !== undefined) labels[field] = label;
	}
	return labels;
}

/** The labels of a list of parameters by their names, for the errors of their reader. */
export function labelsByName(properties: readonly INodeProperties[]): FieldLabels {
	return Object.fromEntries(properties.map((property) => [property.name, property.displayName]));
}

interface Described {
	name?: string;
	displayName?: string;
	options?: unknown;
	values?: unknown;
}

/** The label of the parameter at `path`, through collections (`options`) and their groups (`values`). */
function displayNameAt(entries: readonly unknown[], [name, ...rest]: string[]): string | undefined {
	const found = (entries as Described[]).find((entry) => entry.name === name);
	if (!found || rest.length === 0) return found?.displayName;
	const inner = found.options ?? found.values;
	return Array.isArray(inner) ? displayNameAt(inner, rest) : undefined;
}

const FIELD_PATH = /^([a-z_]+)(?:\[(\d+)\](?:\.([a-z_]+))?)?$/;

/** The label of a field path such as `voice_optimization` or `actions[1].forwarding_number`. */
function labelOf(labels: FieldLabels, path: string): string | undefined {
	const [, root, index, field] = FIELD_PATH.exec(path) ?? [];
	const list = root === undefined ? undefined : labels[root];
	if (list === undefined) return undefined;
	if (index === undefined) return list;
	const item = `${list} ${Number(index) + 1}`;
	if (field === undefined) return item;
	const fieldLabel = labels[`${root}[].${field}`];
	return fieldLabel === undefined ? undefined : `${item}: ${fieldLabel}`;
}

const letters = (text: string) => text.toLowerCase().replace(/[^a-z]/g, '');

/** How errors name a field: "Voice Optimization", "Actions 2: Forwarding Number", "Agent (agent_id)". */
export function fieldName(labels: FieldLabels, path: string): string {
	const label = labelOf(labels, path);
	if (label === undefined) return path;
	return letters(label).includes(letters(path)) ? label : `${label} (${path})`;
}

/**
 * A service message with its API field names put as the node names them: the field path it starts
 * with, and any other known field named in it (`name and area_code are required ...`).
 */
export function withFieldNames(message: string, labels: FieldLabels): string {
	let leading = /^[a-z_]+(?:\[\d+\](?:\.[a-z_]+)?)?(?=\s)/.exec(message)?.[0] ?? '';
	if (labelOf(labels, leading) === undefined) leading = '';
	const rest = message
		.slice(leading.length)
		.replace(/\b[a-z]+_[a-z_]+\b/g, (word) =>
			labels[word] === undefined ? word : fieldName(labels, word),
		);
	return (leading === '' ? '' : fieldName(labels, leading)) + rest;
}
