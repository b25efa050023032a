/**
 * The error factories, one per kind of failure, and the classification the retry, fan-out and look-up
 * logic reads from them: what each factory states at creation, never inferred from the HTTP code.
 */
import { NodeApiError, NodeOperationError, type JsonObject } from 'n8n-workflow';

import {
	asNodeError,
	cancellationError,
	configurationError,
	dataProblemError,
	isNotFound,
	isOutcomeUnknown,
	isTransient,
	noAnswerError,
	serviceAnswerError,
	statedFailure,
} from '../../../nodes/shared/errors';
import { cancelledError } from '../../../nodes/shared/transport/cancel';
import type { VoiceAgentContext } from '../../../nodes/shared/transport/types';
import { stubNode } from '../../support/stubNode.cts';

const node = stubNode();

const classOf = (error: unknown) => [
	isTransient(error),
	isOutcomeUnknown(error),
	isNotFound(error),
];

describe('each factory makes its kind of error, worded as given', () => {
	test('service answer: a NodeApiError with the status as its HTTP code', () => {
		const error = serviceAnswerError(
			node,
			503,
			{ message: 'The service failed', description: 'Tried 6 times.', itemIndex: 2 },
			{ transient: true, outcomeUnknown: false, notFound: false },
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect([error.message, error.description, error.httpCode]).toEqual([
			'The service failed',
			'Tried 6 times.',
			'503',
		]);
		expect(error.context.itemIndex).toBe(2);
		expect(statedFailure(error)?.kind).toBe('serviceAnswer');
	});

	test('no answer: a NodeApiError without an HTTP code', () => {
		const error = noAnswerError(node, { message: 'Could not reach' }, { outcomeUnknown: false });
		expect(error).toBeInstanceOf(NodeApiError);
		expect([error.message, error.httpCode]).toEqual(['Could not reach', null]);
		expect(statedFailure(error)?.kind).toBe('noAnswer');
	});

	test('data problem: a NodeApiError, with the status of the answer it came in, if any', () => {
		const inAnswer = dataProblemError(node, { message: 'GET /calls answered without' }, 200);
		const inAccount = dataProblemError(node, { message: 'Agent "A" has no phone', itemIndex: 1 });
		expect(inAnswer).toBeInstanceOf(NodeApiError);
		expect([inAnswer.httpCode, inAccount.httpCode]).toEqual(['200', null]);
		expect(inAccount.context.itemIndex).toBe(1);
		expect(statedFailure(inAccount)?.kind).toBe('dataProblem');
	});

	test('configuration: a NodeOperationError naming the item', () => {
		const error = configurationError(node, {
			message: 'To must be a phone number [item 3]',
			description: 'E.164',
			itemIndex: 3,
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect([error.message, error.description, error.context.itemIndex]).toEqual([
			'To must be a phone number [item 3]',
			'E.164',
			3,
		]);
		expect(statedFailure(error)?.kind).toBe('configuration');
	});

	test('cancellation: a NodeOperationError of its own kind', () => {
		const error = cancelledError({ getNode: () => node } as unknown as VoiceAgentContext);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('The execution was cancelled');
		expect(statedFailure(error)?.kind).toBe('cancelled');
	});
});

describe('what is stated is what is read', () => {
	test('an unknown outcome is never transient, whatever the factory was told', () => {
		const stated = serviceAnswerError(
			node,
			500,
			{ message: 'failed' },
			{ transient: true, outcomeUnknown: true, notFound: false },
		);
		expect(classOf(stated)).toEqual([false, true, false]);
	});

	test('a service 404 says the resource does not exist', () => {
		const error = serviceAnswerError(
			node,
			404,
			{ message: 'Call "c" was not found' },
			{ transient: false, outcomeUnknown: false, notFound: true },
		);
		expect(classOf(error)).toEqual([false, false, true]);
	});

	test('a call the node could not confirm has an unknown outcome and is not transient', () => {
		const error = noAnswerError(
			node,
			{ message: 'may not have been placed' },
			{ outcomeUnknown: true },
		);
		expect(classOf(error)).toEqual([false, true, false]);
		// Saved executions show the mark, as they always did.
		expect(error.context.outcomeUnknown).toBe(true);
	});

	test('a data problem is neither transient nor of unknown outcome, whatever its HTTP code', () => {
		const noNumber = dataProblemError(node, { message: 'Agent "A" has no phone number' });
		const repeatedCursor = dataProblemError(node, { message: 'repeated a cursor' }, 200);
		expect(classOf(noNumber)).toEqual([false, false, false]);
		expect(classOf(repeatedCursor)).toEqual([false, false, false]);
		expect(noNumber.context.outcomeUnknown).toBeUndefined();
	});

	test('configuration and cancellation are neither transient nor of unknown outcome', () => {
		expect(classOf(configurationError(node, { message: 'bad' }))).toEqual([false, false, false]);
		expect(classOf(cancellationError(node, { message: 'stopped' }))).toEqual([false, false, false]);
	});

	test('an error not made by a factory states nothing: no HTTP code is read', () => {
		const bare = new NodeApiError(node, { httpCode: null } as JsonObject, { message: 'x' });
		const notFound = new NodeApiError(node, { httpCode: '404' } as JsonObject, { httpCode: '404' });
		for (const error of [bare, notFound, new Error('plain'), 'text', undefined]) {
			expect(classOf(error)).toEqual([false, false, false]);
		}
	});
});

describe('asNodeError', () => {
	test("the node's own errors pass as they are; anything else is wrapped", () => {
		const own = dataProblemError(node, { message: 'mine' });
		expect(asNodeError(node, own)).toBe(own);
		const wrapped = asNodeError(node, new TypeError('boom'));
		expect(wrapped).toBeInstanceOf(NodeApiError);
		expect(wrapped.message).toBe('boom');
	});
});
