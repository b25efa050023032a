import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { getCall } from '../shared/api/calls';
import {
	readTranscriptFormat,
	withTranscriptFormat,
	type TranscriptFormat,
} from '../shared/parameters/transcriptFormat';
import { isPlainObject } from '../shared/validation';
import { acceptOnce, dedupeKey, wasAccepted } from './redeliveries';
import { isTokenOf, registrations } from './registration';
import { TOKEN_PARAMETER } from './webhookToken';

/** The registration (by its URL) whose token the request carries, if any: test or production. */
function authenticRegistration(
	context: IWebhookFunctions,
): { url: string; agentId: string } | undefined {
	const given = context.getQueryData() as IDataObject;
	const token = given[TOKEN_PARAMETER];
	if (typeof token !== 'string' || token === '') return undefined;
	const match = Object.entries(registrations(context)).find(([, saved]) => isTokenOf(saved, token));
	return match && { url: match[0], agentId: match[1].agentId };
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

/** A redelivery of an event this process accepted: answered 2xx so the service stops, starting nothing. */
function duplicate(context: IWebhookFunctions): IWebhookResponseData {
	return answer(context, 200, { received: true, duplicate: true });
}

/**
 * The whole call under `call`, only for a call of the trigger's agent: the event must name that agent,
 * and the call fetched must belong to it. Otherwise nothing is fetched or output, and the item says why.
 */
async function addCallDetails(
	context: IWebhookFunctions,
	event: IDataObject,
	agentId: string,
	format: TranscriptFormat,
): Promise<void> {
	const named = isPlainObject(event.data) ? event.data.agent_id : undefined;
	if (named !== agentId) {
		event.call_details_skipped =
			named === undefined
				? "Call details not fetched: the event does not name the call's agent"
				: "Call details not fetched: the event's call belongs to another agent";
		return;
	}
	const call = await getCall(context, event.call_id as string, { purpose: 'webhook' });
	if (call.agent_id !== agentId) {
		event.call_details_skipped = 'Call details not output: the call belongs to another agent';
		return;
	}
	event.call = withTranscriptFormat(call, format);
}

/**
 * Turns one delivery from the service into one workflow item. Deliveries without the token, or not
 * shaped as an event, start nothing; events the user did not select, and redeliveries of an event
 * already accepted, are acknowledged and dropped.
 */
export async function receiveEvent(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const registration = authenticRegistration(this);
	if (!registration) {
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
	event.dedupe_key = dedupeKey(event);
	if (wasAccepted(registration.url, event.dedupe_key as string)) return duplicate(this);
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
		await addCallDetails(this, event, registration.agentId, format);
	}
	// Recorded only now: an event whose details could not be had is answered 500 and comes again.
	if (!acceptOnce(registration.url, event.dedupe_key as string)) return duplicate(this);
	return {
		webhookResponse: { received: true },
		workflowData: [this.helpers.returnJsonArray([event])],
	};
}
