import type { Call } from '../types';
import { isPlainObject } from '../validation';
import { parsedBody } from './body';
import { decodeCall, type CallReading } from './call';
import { idText } from './ids';

/**
 * What a 2xx of POST /call says. The service acted whatever the body: the call it names when the body is
 * the call (the documented shape, or the live service's row with a numeric id), else only a hint of an id
 * the body mentions under another name (`{ "status": "success", "call_id": ... }`), or nothing at all
 * (`null`, an empty 201/202).
 */
export interface CreatedCall {
	call?: Call;
	/** An id the answer mentions without being the call: preferred when the call list shows it. */
	hintedId?: string;
}

export function decodeCreatedCall(raw: unknown, reading: CallReading = {}): CreatedCall {
	const call = decodeCall(raw, reading);
	if (call) return { call };
	const body = parsedBody(raw);
	const hintedId = isPlainObject(body) ? idText(body.call_id) : undefined;
	return hintedId === undefined ? {} : { hintedId };
}
