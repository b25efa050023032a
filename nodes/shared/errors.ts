/**
 * The one way the nodes make an error: one factory per kind of failure, each stating when it makes
 * the error whether a later attempt may succeed (transient) and whether the service may have acted
 * (outcome unknown). The retry, fan-out and look-up logic reads what was stated, never the HTTP code.
 */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

type FailureKind =
	/** The service answered with an error status. */
	| 'serviceAnswer'
	/** No answer came, or one the node could not get or confirm. */
	| 'noAnswer'
	/** What came back, or what the account holds, makes the job impossible. */
	| 'dataProblem'
	/** A credential or parameter that cannot work, e.g. an agent name that names no agent: trying again gets the same. */
	| 'configuration'
	/** The workflow was stopped: nobody's fault, and nothing to try again or look up. */
	| 'cancelled';

interface StatedFailure {
	kind: FailureKind;
	/** A later attempt may succeed (a later pass, a later check). Never with an unknown outcome. */
	transient: boolean;
	/** The service may have acted: never repeated, looked up instead. */
	outcomeUnknown: boolean;
	/** The service said the resource does not exist (404). */
	notFound: boolean;
}

/** What the user reads: n8n's toasts show only the message, the description adds what was tried. */
interface ErrorText {
	message: string;
	description?: string;
	itemIndex?: number;
}

type NodeError = NodeApiError | NodeOperationError;

// A symbol, not `context`: n8n saves `context` with the execution, and this is for the node's own code.
const STATED = Symbol('voiceAgentFailure');

function stated<E extends NodeError>(error: E, failure: StatedFailure): E {
	const transient = failure.transient && !failure.outcomeUnknown;
	Object.defineProperty(error, STATED, { value: { ...failure, transient } });
	// Saved executions have always shown this mark, so a user can tell such a failure apart.
	if (failure.outcomeUnknown) error.context.outcomeUnknown = true;
	return error;
}

/** What the error's factory stated; undefined for an error not made here (another library's, a bug). */
export function statedFailure(error: unknown): StatedFailure | undefined {
	if (typeof error !== 'object' || error === null) return undefined;
	return (error as { [STATED]?: StatedFailure })[STATED];
}

/** Whether a later attempt may succeed: server errors, rate limits and network failures. */
export function isTransient(error: unknown): boolean {
	return statedFailure(error)?.transient === true;
}

/** Whether the service may have acted on a request that is not repeatable (a call may have been placed). */
export function isOutcomeUnknown(error: unknown): boolean {
	return statedFailure(error)?.outcomeUnknown === true;
}

/** Whether the service said the resource does not exist. */
export function isNotFound(error: unknown): boolean {
	return statedFailure(error)?.notFound === true;
}

/**
 * The service answered with an error status. The body given to NodeApiError holds no message of its
 * own, or n8n would show it again as the description.
 */
export function serviceAnswerError(
	node: INode,
	status: number,
	text: ErrorText,
	facts: { transient: boolean; outcomeUnknown: boolean; notFound: boolean },
): NodeApiError {
	const httpCode = String(status);
	const error = new NodeApiError(node, { httpCode } as JsonObject, { ...text, httpCode });
	return stated(error, { kind: 'serviceAnswer', ...facts });
}

/**
 * No answer came (a network failure), or the node could not confirm what the service did. Transient
 * unless the service may have acted. A network error code is kept beside the error, not under `code`:
 * NodeApiError takes that for the HTTP status and swaps the message for a generic one.
 */
export function noAnswerError(
	node: INode,
	text: ErrorText,
	{
		outcomeUnknown,
		networkErrorCode,
	}: { outcomeUnknown: boolean; networkErrorCode?: string | null },
): NodeApiError {
	const response: JsonObject =
		networkErrorCode === undefined ? { httpCode: null } : { networkErrorCode };
	const error = new NodeApiError(node, response, text);
	return stated(error, { kind: 'noAnswer', transient: true, outcomeUnknown, notFound: false });
}

/**
 * What came back or what the account holds makes the job impossible: trying again gets the same.
 * `answerStatus` is the status of the answer the problem came in, when it came in one.
 */
export function dataProblemError(
	node: INode,
	text: ErrorText,
	answerStatus?: number,
): NodeApiError {
	const httpCode = answerStatus === undefined ? null : String(answerStatus);
	const error = new NodeApiError(node, { httpCode } as JsonObject, text);
	return stated(error, {
		kind: 'dataProblem',
		transient: false,
		outcomeUnknown: false,
		notFound: false,
	});
}

/** A credential or parameter that cannot work, e.g. an agent name that names no agent: trying again gets the same. */
export function configurationError(node: INode, text: ErrorText): NodeOperationError {
	const { message, description, itemIndex } = text;
	const error = new NodeOperationError(node, message, { description, itemIndex });
	return stated(error, {
		kind: 'configuration',
		transient: false,
		outcomeUnknown: false,
		notFound: false,
	});
}

/**
 * The workflow was stopped. Its own kind: no setting is wrong, and what a request cut off did is the
 * caller's to keep in mind (a stopped Create keeps the memory of its call), not a reason to look it up.
 */
export function cancellationError(node: INode, text: ErrorText): NodeOperationError {
	const error = new NodeOperationError(node, text.message, { description: text.description });
	return stated(error, {
		kind: 'cancelled',
		transient: false,
		outcomeUnknown: false,
		notFound: false,
	});
}

/** An error as the node reports it: the node's own errors pass as they are, anything else is wrapped. */
export function asNodeError(node: INode, error: unknown): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeApiError(node, error as JsonObject);
}
