/**
 * What several suites expect or send: patterns of the service's values, sample data, and small readers
 * of the service's shapes.
 */

/** A timestamp as the service writes it: ISO 8601 in UTC with milliseconds. */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Any phone number in E.164 form. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/** A North American number (+1 and ten digits). */
export const US_NUMBER = /^\+1\d{10}$/;

/** A North American number in the given area code. */
export function usNumberIn(areaCode: string): RegExp {
	return new RegExp(`^\\+1${areaCode}\\d{7}$`);
}

/** A distinctive API key, so a test can prove it never shows up in an error. */
export const API_KEY = 'va_test_key_7Qm2xKp9RzW4';

/** A function tool with one required argument, as an agent's `tools` holds it. */
export const CHECK_ORDER_TOOL = {
	type: 'function',
	function: {
		name: 'check_order',
		description: 'Looks up an order',
		parameters: {
			type: 'object',
			properties: { order_id: { type: 'string' } },
			required: ['order_id'],
		},
	},
};

/** The ids of agents or calls, in order. */
export function ids(items: { id: string }[]): string[] {
	return items.map((item) => item.id);
}

/** A call's transcript as text, one line per turn. */
export function transcriptText(call: { transcript: { text: string }[] }): string {
	return call.transcript.map((entry) => entry.text).join('\n');
}

/**
 * A call's transcript as Transcript Format "Text" must write it, spelled out here apart from the node's
 * code: a line per turn, "Agent: …" or "Customer: …".
 */
export function transcriptLines(call: { transcript: { speaker: string; text: string }[] }): string {
	const label: Record<string, string> = { agent: 'Agent', customer: 'Customer' };
	return call.transcript.map((entry) => `${label[entry.speaker]}: ${entry.text}`).join('\n');
}
