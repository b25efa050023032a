import { timingSafeEqual } from 'node:crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { getCall } from '../shared/api';
import { readTranscriptFormat, withTranscriptFormat } from '../shared/transcript';
import { isPlainObject } from '../shared/validation';
import { registrations, SECRET_PARAMETER } from './registration';

function sameSecret(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether the request carries the secret of one of this trigger's registrations (test or production). */
function isAuthentic(context: IWebhookFunctions): boolean {
	const given = context.getQueryData() as IDataObject;
	const token = given[SECRET_PARAMETER];
	if (typeof token !== 'string' || token === '') return false;
	return Object.values(registrations(context)).some((registration) =>
		sameSecret(token, registration.secret),
	);
}

function answer(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	const response = context.getResponseObject();
	response.status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * Turns one delivery from the service into one workflow item. Deliveries without the secret, or not
 * shaped as an event, start nothing; events the user did not select are acknowledged and dropped.
 */
export async function receiveEvent(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	if (!isAuthentic(this)) {
		return answer(this, 401, { error: 'Unauthorized', message: 'Missing or wrong token' });
	}
	const body = this.getBodyData() as unknown;
	if (!isPlainObject(body) || typeof body.event_type !== 'string' || body.event_type === '') {
		return answer(this, 400, {
			error: 'Bad Request',
			message: 'Expected a JSON object with an "event_type"',
		});
	}
	const selected = this.getNodeParameter('events', []) as string[];
	if (!selected.includes(body.event_type)) {
		return answer(this, 200, { received: true, ignored: true });
	}

	const event: IDataObject = {
		event_type: body.event_type,
		call_id: body.call_id ?? null,
		timestamp: body.timestamp ?? null,
		data: body.data ?? {},
	};
	// n8n's expression sandbox refuses the name `arguments` (`$json.data.arguments` fails), so a tool
	// call's name and arguments are also given under names that expressions can reach.
	if (body.event_type === 'tool_call' && isPlainObject(body.data)) {
		event.tool_name = body.data.name ?? null;
		event.tool_arguments = isPlainObject(body.data.arguments) ? body.data.arguments : {};
	}
	const includeCallDetails = this.getNodeParameter('options.includeCallDetails', false) === true;
	if (includeCallDetails && body.event_type === 'call_ended' && typeof body.call_id === 'string') {
		// The webhook budget keeps the answer inside the sender's delivery timeout: when the details
		// cannot be had quickly, n8n answers 500 and the service delivers the event again later.
		const format = readTranscriptFormat(
			this.getNode(),
			this.getNodeParameter('options.transcriptFormat', 'entries'),
		);
		event.call = withTranscriptFormat(
			await getCall(this, body.call_id, { purpose: 'webhook' }),
			format,
		);
	}
	return {
		webhookResponse: { received: true },
		workflowData: [this.helpers.returnJsonArray([event])],
	};
}
