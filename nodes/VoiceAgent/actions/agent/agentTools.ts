import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../../../shared/validation';

/** A worked example of a function tool, shown in the empty Tools (JSON) field. */
const TOOLS_EXAMPLE = `[
  {
    "type": "function",
    "function": {
      "name": "check_order_status",
      "description": "Look up an order by its number",
      "parameters": {
        "type": "object",
        "properties": { "order_id": { "type": "string" } },
        "required": ["order_id"]
      }
    }
  }
]`;

/** The agent's tools as a JSON array; empty keeps them. */
export const toolsField: INodeProperties = {
	displayName: 'Tools (JSON)',
	name: 'tools',
	// Text rather than n8n's JSON editor, which shows no placeholder and marks an empty value as an error.
	type: 'string',
	typeOptions: { rows: 14 },
	default: '',
	placeholder: TOOLS_EXAMPLE,
	hint: "A JSON array of function tools, like the example shown while the field is empty. Replaces the agent's tools; empty keeps them.",
	description:
		'Functions the agent can call during a call, each with a name, a description and its parameters as a JSON Schema. A Voice Agent Trigger with the event Tool Call receives the calls.',
};

/** Removing every tool takes this explicit option, never an empty field. */
export const removeAllToolsField: INodeProperties = {
	displayName: 'Remove All Tools',
	name: 'removeAllTools',
	type: 'boolean',
	default: false,
	description:
		"Whether to remove every tool of the agent. Leaving Tools (JSON) empty keeps the agent's tools.",
};

/** How the body builder names a field in an error, by the API field's path. */
export type Named = (path: string) => string;

/**
 * The agent's tools from "Tools (JSON)" and "Remove All Tools": undefined keeps them. An empty
 * field or an empty list never removes them by itself: removing takes the explicit option.
 */
export function toolsOf(
	validate: InputValidator,
	named: Named,
	fields: IDataObject,
): IDataObject[] | undefined {
	const given =
		fields.tools !== undefined &&
		fields.tools !== null &&
		!(typeof fields.tools === 'string' && fields.tools.trim() === '');
	const tools = given ? validate.jsonArrayOfObjects(fields.tools, named('tools')) : undefined;
	if (fields.removeAllTools === true) {
		if (tools && tools.length > 0) {
			validate.fail(
				named('tools'),
				'must be empty when "Remove All Tools" is on: remove one of the two',
			);
		}
		return [];
	}
	if (tools && tools.length === 0) {
		validate.fail(
			named('tools'),
			'is an empty list, which would remove all the agent\'s tools: to do that, add the option "Remove All Tools"; to keep them, leave Tools (JSON) empty',
		);
	}
	return tools;
}
