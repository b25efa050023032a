import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { settle, type EventState } from './redeliveries';

/** The parts of n8n's express response the trigger uses. */
interface Response {
	statusCode: number;
	headersSent: boolean;
	status(code: number): Response;
	json(body: unknown): unknown;
	send(body: unknown): unknown;
	setHeader(name: string, value: string): unknown;
	getHeader(name: string): unknown;
	end: (...args: unknown[]) => unknown;
}

function responseOf(context: IWebhookFunctions): Response {
	return context.getResponseObject() as unknown as Response;
}

/** Answers the service directly: n8n starts no execution and adds nothing to the answer. */
export function answer(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	responseOf(context).status(status).json(body);
	return { noWebhookResponse: true };
}

/** Why a delivery started no execution; each is logged at warn level with its reason. */
export type NoRunReason = 'unauthorized' | 'duplicate' | 'in-flight';

const ANSWERS: Record<NoRunReason, { status: number; body: IDataObject }> = {
	unauthorized: {
		status: 401,
		body: { error: 'Unauthorized', message: 'Missing or wrong token' },
	},
	duplicate: { status: 200, body: { received: true, duplicate: true } },
	// Its run is still under way after the wait: that run handles it.
	'in-flight': { status: 200, body: { received: true, duplicate: true } },
};

/**
 * Answers a delivery that starts no execution (so no failed run and no Error Workflow), and says why in
 * n8n's log. The reason is a fixed text: no token, no stack trace.
 */
export function answerWithoutRun(
	context: IWebhookFunctions,
	reason: NoRunReason,
): IWebhookResponseData {
	const { status, body } = ANSWERS[reason];
	context.logger.warn(
		`Voice Agent Trigger answered ${status} (${reason}) and started no execution`,
		{ workflowId: context.getWorkflow().id, node: context.getNode().name, reason },
	);
	return answer(context, status, body);
}

/**
 * A repeat of an event this process knows: answered as its run was when that answer is kept (a tool
 * call's result), otherwise 200 `{"received": true, "duplicate": true}`; its run may still be under way.
 */
export function answerDuplicate(
	context: IWebhookFunctions,
	known: EventState,
): IWebhookResponseData {
	const kept = known.inFlight ? undefined : known.answer;
	if (!kept) return answerWithoutRun(context, known.inFlight ? 'in-flight' : 'duplicate');
	context.logger.warn(
		'Voice Agent Trigger answered a redelivered event with the answer of its first run and started no execution',
		{ workflowId: context.getWorkflow().id, node: context.getNode().name, reason: 'duplicate' },
	);
	const response = responseOf(context);
	if (kept.contentType) response.setHeader('content-type', kept.contentType);
	response.status(kept.status).send(kept.body);
	return { noWebhookResponse: true };
}

function textOf(chunk: unknown): string | undefined {
	if (typeof chunk === 'string') return chunk;
	if (chunk === undefined || chunk === null) return '';
	if (Buffer.isBuffer(chunk)) return chunk.toString('utf8');
	return undefined;
}

/**
 * Settles the event when n8n answers this delivery: n8n ends the response once the run finished (or
 * its Respond to Webhook node answered), in queue mode too, where this process holds the response
 * until the worker is done. The answer is seen where n8n ends the response rather than on 'finish',
 * which never comes when the sender stopped waiting: the run's outcome still counts then. With
 * `keepAnswer` the body is kept to answer a redelivery the same way (only when one end() carries it
 * whole, not a stream).
 */
export function settleOnAnswer(
	context: IWebhookFunctions,
	trigger: string,
	key: string,
	keepAnswer: boolean,
): void {
	const response = responseOf(context);
	const end = response.end;
	let settled = false;
	response.end = function (this: Response, ...args: unknown[]) {
		if (!settled) {
			settled = true;
			const body = keepAnswer && !response.headersSent ? textOf(args[0]) : undefined;
			const contentType = response.getHeader('content-type');
			const status = response.statusCode;
			settle(
				trigger,
				key,
				status,
				body === undefined
					? undefined
					: {
							status,
							contentType: typeof contentType === 'string' ? contentType : undefined,
							body,
						},
			);
		}
		return end.apply(this, args);
	};
}
