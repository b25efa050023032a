/**
 * Max Calls per Run's slots, which need no service: taken synchronously, so calls placed at the same time
 * never share one. A stub context stands in for n8n's: the rule reads nothing else from it.
 */
import type { IDataObject } from 'n8n-workflow';

import { reserveCallSlot } from '../../../nodes/VoiceAgent/actions/call/maxCallsPerRun';
import { InputValidator } from '../../../nodes/shared/validation';
import { contextWith, node } from './stubContext.cts';

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

	test('where n8n gives no execution context, the limit still holds within the run', () => {
		const context = contextWith(undefined);
		const validate = new InputValidator(node, 0);
		reserveCallSlot(context, validate, 1, '+14155550101');
		expect(() => reserveCallSlot(context, validate, 1, '+14155550102')).toThrow(
			/^Max Calls per Run \(1\) is reached: this node already placed 1 call in this execution/,
		);
	});
});
