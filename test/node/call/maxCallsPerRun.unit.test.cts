/**
 * The parts of Call → Create's re-run safety that need no service: Max Calls per Run's slots, taken
 * synchronously (so calls placed at the same time never share one), and the refusal of Retry On Fail
 * where n8n gives the node no execution context to remember its calls in. A stub context stands in
 * for n8n's: these rules read nothing else from it (the engine tests in test/node/call/ run them for real).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { rememberedCall } from '../../../nodes/VoiceAgent/actions/call/callMemory';
import { reserveCallSlot } from '../../../nodes/VoiceAgent/actions/call/maxCallsPerRun';
import { InputValidator } from '../../../nodes/shared/validation';

const node: INode = {
	id: 'n1',
	name: 'Voice Agent',
	type: 'n8n-nodes-voice-agent.voiceAgent',
	typeVersion: 1.2,
	position: [0, 0],
	parameters: {},
};

function contextWith(nodeContext: IDataObject | undefined, settings: Partial<INode> = {}) {
	return {
		getNode: () => ({ ...node, ...settings }),
		...(nodeContext ? { getContext: () => nodeContext } : {}),
	} as unknown as IExecuteFunctions;
}

describe('Max Calls per Run', () => {
	test('calls started together take distinct slots: only the limit gets one', () => {
		const context = contextWith({});
		const outcomes = ['+14155550101', '+14155550102', '+14155550103', '+14155550104'].map(
			(to, itemIndex) => {
				try {
					reserveCallSlot(context, new InputValidator(node, itemIndex), 2, to);
					return 'slot';
				} catch (error) {
					return (error as Error).message;
				}
			},
		);
		expect(outcomes).toEqual([
			'slot',
			'slot',
			'Max Calls per Run (2) is reached: this node already placed 2 calls in this execution, so the call to +14155550103 was not placed [item 2]',
			'Max Calls per Run (2) is reached: this node already placed 2 calls in this execution, so the call to +14155550104 was not placed [item 3]',
		]);
	});

	test('a slot given back (nothing was placed) can be taken again, once', () => {
		const nodeContext: IDataObject = {};
		const context = contextWith(nodeContext);
		const validate = new InputValidator(node, 0);
		const release = reserveCallSlot(context, validate, 1, '+14155550101');
		release();
		release();
		expect(nodeContext.voiceAgentCallsReserved).toBe(0);
		reserveCallSlot(context, validate, 1, '+14155550102');
		expect(() => reserveCallSlot(context, validate, 1, '+14155550103')).toThrow(
			/^Max Calls per Run \(1\) is reached/,
		);
	});

	test('0 is no limit: every call gets a slot, and is counted', () => {
		const nodeContext: IDataObject = {};
		const context = contextWith(nodeContext);
		for (let i = 0; i < 100; i++)
			reserveCallSlot(context, new InputValidator(node, i), 0, '+14155550101');
		expect(nodeContext.voiceAgentCallsReserved).toBe(100);
	});
});

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
