/**
 * Call → Create's memory of its calls, where n8n gives the node no execution context to keep it in:
 * Retry On Fail is refused, since a retry would phone every number again. A stub context stands in for
 * n8n's: the rule reads nothing else from it.
 */
import { rememberedCall } from '../../../nodes/VoiceAgent/actions/call/callMemory';
import { contextWith } from './stubContext.cts';

describe('without an execution context to remember calls in', () => {
	const body = { from: '+14155550100', to: '+14155550101' };

	test('Retry On Fail is refused, naming the setting', () => {
		expect(() => rememberedCall(contextWith(undefined, { retryOnFail: true }), 0, body)).toThrow(
			'Retry On Fail cannot be used with Call → Create in this n8n: a retry would phone every number again [item 0]',
		);
	});

	test('without Retry On Fail the call goes ahead', () => {
		expect(rememberedCall(contextWith(undefined), 0, body)).toBeUndefined();
	});
});
