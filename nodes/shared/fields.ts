/**
 * The API's fields by the labels the nodes show for them, so that the node's own checks and the
 * service's 400 answers name a field the same way: its label, with the API field in brackets only
 * where the label does not already say it ("Agent (agent_id)", but "Webhook URL").
 */
export type FieldLabels = Readonly<Record<string, string>>;

/** POST /agent. Fields of list items are keyed `list[].field`. */
export const AGENT_FIELDS: FieldLabels = {
	name: 'Name',
	area_code: 'Area Code',
	system_prompt: 'System Prompt',
	initial_message: 'Initial Message',
	voice_id: 'Voice ID',
	language: 'Language',
	llm_model: 'LLM Model',
	webhook: 'Webhook URL',
	tools: 'Tools (JSON)',
	filler_words: 'Filler Words',
	filler_words_whitelist: 'Filler Words Whitelist',
	voicemail_number: 'Voicemail Number',
	endpointing: 'Endpointing (Milliseconds)',
	voice_optimization: 'Voice Optimization',
	smart_endpointing_threshold: 'Smart Endpointing Threshold',
	actions: 'Actions',
	'actions[].name': 'Name',
	'actions[].instructions': 'Instructions',
	'actions[].forwarding_number': 'Forwarding Number',
	compliance_checks: 'Compliance Checks',
	'compliance_checks[].name': 'Name',
	'compliance_checks[].model': 'Model',
	'compliance_checks[].check_instructions': 'Check Instructions',
	'compliance_checks[].rewrite_threshold': 'Rewrite Threshold',
};

/** POST /call. */
export const CALL_FIELDS: FieldLabels = {
	from: 'From (Agent)',
	to: 'To',
	context: 'Context',
	user_speaks_first: 'User Speaks First',
};

/** POST /call/context. */
export const CALL_CONTEXT_FIELDS: FieldLabels = { id: 'Call ID', context: 'Context' };

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
