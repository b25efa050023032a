/** What a failed item becomes: the very error, naming its item, or one error item with "On Error → Continue". */
import type { IExecuteFunctions } from 'n8n-workflow';

import { failedItemOutput } from '../../nodes/VoiceAgent/actions/itemFailure';
import {
	configurationError,
	dataProblemError,
	isOutcomeUnknown,
	noAnswerError,
} from '../../nodes/shared/errors';
import { stubNode } from '../support/stubNode.cts';

const node = stubNode();

const executeContext = (continueOnFail: boolean) =>
	({ getNode: () => node, continueOnFail: () => continueOnFail }) as unknown as IExecuteFunctions;

test('a failed item throws the very error, with its item, and keeps what was stated', () => {
	const error = noAnswerError(
		node,
		{ message: 'may not have been placed' },
		{ outcomeUnknown: true },
	);
	let thrown: unknown;
	try {
		failedItemOutput(executeContext(false), 4, error);
	} catch (caught) {
		thrown = caught;
	}
	expect(thrown).toBe(error);
	expect(error.context.itemIndex).toBe(4);
	expect(isOutcomeUnknown(thrown)).toBe(true);
});

test('an item index the error already names is kept', () => {
	const error = configurationError(node, { message: 'bad [item 1]', itemIndex: 1 });
	expect(() => failedItemOutput(executeContext(false), 0, error)).toThrow(error);
	expect(error.context.itemIndex).toBe(1);
});

test('with "On Error → Continue" a failed item is one error item paired with it', () => {
	const error = dataProblemError(node, { message: 'Agent "A" has no phone number' });
	expect(failedItemOutput(executeContext(true), 2, error)).toEqual([
		{ json: { error: 'Agent "A" has no phone number' }, pairedItem: { item: 2 } },
	]);
});
