import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { getCall } from '../shared/api/calls';
import { asNodeError, isNotFound } from '../shared/errors';
import {
	readTranscriptFormat,
	withTranscriptFormat,
	type TranscriptFormat,
} from '../shared/parameters/transcriptFormat';
import { isPlainObject } from '../shared/validation';
import { answer, answerDuplicate, refuse, settleOnAnswer } from './answers';
import { senderGone, takeOn, withDetailReadSlot } from './load';
import { beginHandling, dedupeKey, forget, stateOf } from './redeliveries';
import { isTokenOf, registrations } from './registrationStore';
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

/**
 * The whole call under `call`, only for a call of the trigger's agent: the event must name that agent,
 * and the call fetched must belong to it. Otherwise nothing is fetched or output, and the item says why.
 * Answers the error when the call could not be read now (the delivery is then refused, to come again).
 */
async function addCallDetails(
	context: IWebhookFunctions,
	event: IDataObject,
	agentId: string,
	format: TranscriptFormat,
): Promise<Error | undefined> {
	const named = isPlainObject(event.data) ? event.data.agent_id : undefined;
	if (named !== agentId) {
		event.call_details_skipped =
			named === undefined
				? "Call details not fetched: the event does not name the call's agent"
				: "Call details not fetched: the event's call belongs to another agent";
		return undefined;
	}
	const read = await getCall(context, event.call_id as string, { purpose: 'webhook' }).then(
		(call) => ({ call }),
		(error: unknown) => ({ error: error as Error }),
	);
	if ('error' in read) {
		if (!isNotFound(read.error)) return read.error;
		// Asking again cannot help: the event is output, saying why it has no details.
		event.call_details_skipped = 'Call details not found: the service does not know this call';
		return undefined;
	}
	const { call } = read;
	if (call.agent_id !== agentId) {
		event.call_details_skipped = 'Call details not output: the call belongs to another agent';
		return undefined;
	}
	event.call = withTranscriptFormat(call, format);
	return undefined;
}

/**
 * Turns one delivery from the service into one workflow item. Deliveries without the token, or not
 * shaped as an event, start nothing; events the user did not select are acknowledged and dropped.
 * A delivery the trigger cannot accept now (the event is being handled, or its call details cannot
 * be read in time) is answered non-2xx without an execution, so the service delivers it again; a
 * redelivery of an event already handled is answered 2xx and starts nothing. Past the process's bound
 * of deliveries in flight a delivery is refused at once (`load.ts`), and one whose sender stopped
 * waiting starts nothing: the service delivers both again.
 */
export async function receiveEvent(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const registration = authenticRegistration(this);
	if (!registration) return refuse(this, 'unauthorized');
	if (senderGone(this)) return refuse(this, 'sender-gone');
	if (!takeOn(this)) return refuse(this, 'overloaded');
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
	const key = dedupeKey(event);
	event.dedupe_key = key;
	const includeCallDetails = this.getNodeParameter('options.includeCallDetails', false) === true;
	const withDetails =
		includeCallDetails && body.event_type === 'call_ended' && typeof body.call_id === 'string';
	// Read before the event is claimed: a wrong setting fails the run, where the user sees it.
	const format = withDetails
		? readTranscriptFormat(
				this.getNode(),
				this.getNodeParameter('options.transcriptFormat', 'entries'),
			)
		: 'entries';
	const known = stateOf(registration.url, key);
	if (known?.inFlight === true) return refuse(this, 'in-flight');
	if (known) return answerDuplicate(this, known.answer);
	// Claimed before any await: a concurrent delivery of the same event is refused, not run twice.
	beginHandling(registration.url, key);
	// n8n's expression sandbox refuses the name `arguments` (`$json.data.arguments` fails), so a tool
	// call's name and arguments are also given under names that expressions can reach.
	if (body.event_type === 'tool_call' && isPlainObject(body.data)) {
		event.tool_name = body.data.name ?? null;
		event.tool_arguments = isPlainObject(body.data.arguments) ? body.data.arguments : {};
	}
	let unreadable: Error | undefined;
	try {
		// Read in turn with the process's other detail reads; not at all once the sender has gone.
		unreadable = withDetails
			? await withDetailReadSlot(async () =>
					senderGone(this)
						? undefined
						: await addCallDetails(this, event, registration.agentId, format),
				)
			: undefined;
	} catch (error) {
		// Whatever went wrong, the claim ends with this delivery: n8n answers it 500, which the service
		// retries, and the redelivery runs the event instead of meeting a 409 for ever.
		forget(registration.url, key);
		throw asNodeError(this.getNode(), error);
	}
	if (senderGone(this)) {
		// Nobody waits for this answer: the redelivery runs the event, here or in another process.
		forget(registration.url, key);
		return refuse(this, 'sender-gone');
	}
	if (unreadable) {
		// The webhook budget keeps this answer inside the sender's delivery timeout; the event comes
		// again and is handled then.
		forget(registration.url, key);
		return refuse(this, 'details-unavailable', unreadable.message);
	}
	// Handled once n8n answers 2xx: with Immediately right after it started the execution (or queued
	// it), otherwise once the run succeeded. A tool call's answer from the workflow is kept.
	const immediately = this.getNodeParameter('responseMode', 'onReceived') === 'onReceived';
	settleOnAnswer(this, registration.url, key, !immediately && body.event_type === 'tool_call');
	return {
		webhookResponse: { received: true },
		workflowData: [this.helpers.returnJsonArray([event])],
	};
}
