import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { decodeEvent, type DecodedEvent } from '../shared/decode/event';
import { asNodeError } from '../shared/errors';
import {
	readTranscriptFormat,
	withTranscriptFormat,
	type TranscriptFormat,
} from '../shared/parameters/transcriptFormat';
import { answer, answerDuplicate, answerWithoutRun, settleOnAnswer } from './answers';
import { readCallDetails } from './callDetails';
import { beginHandling, forget, stateOf, untilSettled } from './redeliveries';
import { isTokenOf, registrations } from './registrationStore';
import { TOKEN_PARAMETER } from './webhookToken';

/**
 * How long a delivery of an event whose run is under way waits for that run: when it fails, this delivery
 * runs the event; when it succeeds, this one gets its answer. Within the documented sender's 10 s.
 */
export const DUPLICATE_WAIT_MS = 5_000;

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
 * The workflow's item: one shape for both services. A tool call's name and arguments are also given under
 * names n8n's expressions can reach (its sandbox refuses `$json.data.arguments`).
 */
function itemOf(event: DecodedEvent, format: TranscriptFormat): IDataObject {
	const item: IDataObject = {
		event_type: event.eventType,
		call_id: event.callId as IDataObject[string],
		timestamp: event.timestamp as IDataObject[string],
		data: event.data as IDataObject[string],
		dedupe_key: event.dedupeKey,
	};
	const [first] = event.toolCalls ?? [];
	if (event.toolCalls && event.shape === 'documented') {
		item.tool_name = first.name;
		item.tool_arguments = first.arguments as IDataObject;
	} else if (event.toolCalls) {
		item.tool_name = first?.name ?? null;
		item.tool_arguments = (first?.arguments ?? {}) as IDataObject;
		item.tool_call_id = first?.id ?? null;
		item.tool_calls = event.toolCalls;
	}
	if (event.call) item.call = withTranscriptFormat(event.call, format);
	return item;
}

/**
 * Claims the event for this delivery, synchronously when nothing is known of it. A delivery of an event
 * whose run is under way waits for that run (at most DUPLICATE_WAIT_MS): 'run' when the run failed (this
 * delivery runs it), otherwise the answer for a repeat.
 */
async function claim(
	context: IWebhookFunctions,
	trigger: string,
	key: string,
): Promise<'run' | IWebhookResponseData> {
	const deadline = Date.now() + DUPLICATE_WAIT_MS;
	for (;;) {
		const known = stateOf(trigger, key);
		if (!known) {
			beginHandling(trigger, key);
			return 'run';
		}
		const left = deadline - Date.now();
		if (!known.inFlight || left <= 0) return answerDuplicate(context, known);
		await untilSettled(trigger, key, left);
	}
}

/**
 * Turns one delivery from the service into one workflow item. Deliveries without the token start nothing
 * (401), nor do bodies that are not an event (400); events the user did not select are acknowledged and
 * dropped. Every other delivery is answered 2xx: a new event runs the workflow, a repeat of one handled
 * (or still being handled) starts nothing. Nothing is refused for load, for call details that cannot be
 * read, or because the sender stopped waiting: a sender that never delivers again loses nothing.
 */
export async function receiveEvent(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const registration = authenticRegistration(this);
	if (!registration) return answerWithoutRun(this, 'unauthorized');
	const event = decodeEvent(this.getBodyData());
	if (!event) {
		return answer(this, 400, {
			error: 'Bad Request',
			message: 'Expected an event: a JSON object with an "event_type" (or "event")',
		});
	}
	const selected = this.getNodeParameter('events', []) as string[];
	if (!selected.includes(event.eventType)) {
		return answer(this, 200, { received: true, ignored: true });
	}
	const includeCallDetails = this.getNodeParameter('options.includeCallDetails', false) === true;
	const read =
		!event.call &&
		includeCallDetails &&
		event.eventType === 'call_ended' &&
		typeof event.callId === 'string';
	// Read before the event is claimed: a wrong setting fails the run, where the user sees it.
	const format =
		read || event.call
			? readTranscriptFormat(
					this.getNode(),
					this.getNodeParameter('options.transcriptFormat', 'entries'),
				)
			: 'entries';
	const { url } = registration;
	const claimed = await claim(this, url, event.dedupeKey);
	if (claimed !== 'run') return claimed;

	let item: IDataObject;
	try {
		item = itemOf(event, format);
		if (read) {
			const details = await readCallDetails(
				this,
				event.callId as string,
				event.data,
				registration.agentId,
			);
			if ('call' in details) item.call = withTranscriptFormat(details.call, format);
			else item.call_details_skipped = details.skipped;
		}
	} catch (error) {
		// The claim ends with this delivery: n8n answers it 500, and a redelivery runs the event.
		forget(url, event.dedupeKey);
		throw asNodeError(this.getNode(), error);
	}
	// Handled once n8n answers 2xx: with Immediately right after it started the execution (or queued
	// it), otherwise once the run succeeded. A tool call's answer from the workflow is kept.
	const immediately = this.getNodeParameter('responseMode', 'onReceived') === 'onReceived';
	const toolCall = event.eventType === 'tool_call' || event.eventType === 'action';
	settleOnAnswer(this, url, event.dedupeKey, !immediately && toolCall);
	return {
		webhookResponse: { received: true },
		workflowData: [this.helpers.returnJsonArray([item])],
	};
}
