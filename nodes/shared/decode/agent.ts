import type { Agent } from '../types';
import { isPlainObject } from '../validation';
import { parsedBody } from './body';
import { idText, keepWireId } from './ids';

/**
 * The one decoder of agents: the documented shape and the live service's rows (numeric `id` and
 * `user_id`) become one model with the id as text; every other field passes through. Undefined when
 * the answer is not an agent (no object, no id).
 */
export function decodeAgent(raw: unknown): Agent | undefined {
	const body = parsedBody(raw);
	if (!isPlainObject(body)) return undefined;
	const id = idText(body.id);
	if (id === undefined) return undefined;
	const agent = { ...body, id, name: typeof body.name === 'string' ? body.name : '' } as Agent;
	if (body.user_id !== undefined && idText(body.user_id) !== undefined)
		agent.user_id = idText(body.user_id);
	keepWireId(agent, body.id as string | number);
	return agent;
}
