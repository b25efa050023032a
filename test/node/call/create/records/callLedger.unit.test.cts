/**
 * Call → Create's ledger, the execution's one record per intended call: its states move only forward,
 * Max Calls per Run counts the records that may have phoned someone, and where n8n gives the node no
 * execution context to keep it in, Retry On Fail is refused (a retry would phone every number again).
 * A stub context stands in for n8n's: the rules read nothing else from it (the engine suites run them
 * for real).
 */
import {
	advance,
	callsCounted,
	checkCallLimit,
	claimSlot,
	ledgerOf,
	markEnded,
	sameCaller,
} from '../../../../../nodes/VoiceAgent/actions/call/create/records/callLedger';
import type { CallRecord } from '../../../../../nodes/VoiceAgent/actions/call/create/model';
import { InputValidator } from '../../../../../nodes/shared/validation';
import { contextWith, node } from '../../stubContext.cts';

const record = (state: CallRecord['state']): CallRecord => ({
	agent: 'name:Front Desk',
	to: '+14155550101',
	state,
	executionId: '1',
});

describe('a record moves only forward', () => {
	test.each([
		['claimed', 'sent'],
		['claimed', 'notSent'],
		['claimed', 'skipped'],
		['sent', 'placed'],
		['sent', 'unnamed'],
		['sent', 'unknown'],
		['sent', 'notSent'],
		['unnamed', 'placed'],
		['unknown', 'placed'],
		['placed', 'ended'],
	] as const)('%s → %s', (from, to) => {
		const moved = record(from);
		advance(moved, to);
		expect(moved.state).toBe(to);
	});

	test.each([
		['sent', 'claimed'],
		['placed', 'sent'],
		['placed', 'notSent'],
		['unknown', 'notSent'],
		['unnamed', 'notSent'],
		['ended', 'placed'],
		['notSent', 'sent'],
	] as const)('never %s → %s: a 2xx or a maybe never becomes "not sent"', (from, to) => {
		expect(() => advance(record(from), to)).toThrow(`cannot go from ${from} to ${to}`);
	});
});

describe('Max Calls per Run', () => {
	test('counts every record that may have phoned someone, and only those', () => {
		const ledger = { records: {} as Record<string, CallRecord>, sentAt: [] };
		const states = [
			'claimed',
			'sent',
			'placed',
			'unnamed',
			'unknown',
			'ended',
			'notSent',
			'skipped',
		];
		states.forEach((state, index) => (ledger.records[String(index)] = record(state as never)));
		expect(callsCounted(ledger)).toBe(6);
	});

	test('a slot claimed again for another call keeps the earlier record, which goes on counting', () => {
		const ledger = {
			records: { '0:0': record('placed') } as Record<string, CallRecord>,
			sentAt: [],
		};
		claimSlot(ledger, '0:0', { ...record('claimed'), to: '+14155550199' });
		claimSlot(ledger, '0:0', { ...record('notSent'), to: '+14155550198' });
		claimSlot(ledger, '0:0', { ...record('claimed'), to: '+14155550197' });
		expect(Object.keys(ledger.records).sort()).toEqual(['0:0', '0:0~1', '0:0~2']);
		expect(callsCounted(ledger)).toBe(3);
	});

	test('fails at the limit, naming it; 0 is no limit', () => {
		const ledger = { records: { a: record('placed'), b: record('unknown') }, sentAt: [] };
		const validate = new InputValidator(node, 2);
		expect(() => checkCallLimit(ledger, validate, 2, '+14155550103')).toThrow(
			'Max Calls per Run (2) is reached: this node already placed 2 calls in this execution, so the call to +14155550103 was not placed [item 2]',
		);
		expect(() => checkCallLimit(ledger, validate, 3, '+14155550103')).not.toThrow();
		expect(() => checkCallLimit(ledger, validate, 0, '+14155550103')).not.toThrow();
	});
});

describe("the ledger's bookkeeping per item does not grow with the list", () => {
	/** A list of `count` items through the guards: the limit checked, the claim, the call placed and seen to end. */
	function readsFor(count: number): number {
		let reads = 0;
		const records = new Proxy({} as Record<string, CallRecord>, {
			get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver) as unknown),
			getOwnPropertyDescriptor: (target, key) => (
				reads++,
				Reflect.getOwnPropertyDescriptor(target, key)
			),
			ownKeys: (target) => (reads++, Reflect.ownKeys(target)),
		});
		const ledger = { records, sentAt: [] };
		const validate = new InputValidator(node, 0);
		for (let item = 0; item < count; item++) {
			checkCallLimit(ledger, validate, count + 1, '+14155550101');
			const claimed = record('claimed');
			claimSlot(ledger, `0:${item}`, claimed);
			advance(claimed, 'sent');
			advance(claimed, 'placed', `call_${item}`);
			markEnded(ledger, `call_${item}`);
		}
		expect(callsCounted(ledger)).toBe(count);
		return reads;
	}

	test('10 times the items (300 and 3,000), at most 20 times the reads of the records', () => {
		// A scan of every record per item makes this about 100 (quadratic); a lookup per item about 10.
		expect(readsFor(3_000) / readsFor(300)).toBeLessThan(20);
	});

	test('a saved ledger read back (a copy, as Retry execution reads it) counts and ends as the original', () => {
		const ledger = { records: {} as Record<string, CallRecord>, sentAt: [] };
		const placed = record('claimed');
		claimSlot(ledger, '0:0', placed);
		advance(placed, 'sent');
		advance(placed, 'placed', 'call_1');
		claimSlot(ledger, '0:1', { ...record('unknown'), sameCallAs: '0:0' });
		claimSlot(ledger, '0:2', record('notSent'));
		expect(callsCounted(ledger)).toBe(1);

		const readBack = JSON.parse(JSON.stringify(ledger)) as typeof ledger;
		expect(callsCounted(readBack)).toBe(1);
		markEnded(readBack, 'call_1');
		expect(readBack.records['0:0'].state).toBe('ended');
		expect(ledger.records['0:0'].state).toBe('placed');
	});
});

describe('where the ledger lives', () => {
	test("in n8n's execution context, where records an earlier version kept are taken over", () => {
		const nodeContext = {
			voiceAgentPlacedCalls: {
				'0:0': { from: '+14155550100', to: '+14155550101', callId: 'call_1', executionId: '41' },
				'0:1': { from: '+14155550100', to: '+14155550102', executionId: '41' },
			},
			voiceAgentCallsReserved: 2,
		};
		const ledger = ledgerOf(contextWith(nodeContext));
		expect(ledger.records).toEqual({
			'0:0': {
				agent: '',
				to: '+14155550101',
				state: 'placed',
				callId: 'call_1',
				executionId: '41',
			},
			'0:1': { agent: '', to: '+14155550102', state: 'unknown', executionId: '41' },
		});
		expect(nodeContext).toEqual({ voiceAgentCalls: ledger });
		expect(ledgerOf(contextWith(nodeContext))).toBe(ledger);
	});

	test('without an execution context, Retry On Fail is refused, naming the setting', () => {
		expect(() => ledgerOf(contextWith(undefined, { retryOnFail: true }))).toThrow(
			'Retry On Fail cannot be used with Call → Create in this n8n: a retry would phone every number again [item 0]',
		);
	});

	test('without an execution context and without Retry On Fail, one ledger per node run', () => {
		const context = contextWith(undefined);
		expect(ledgerOf(context)).toBe(ledgerOf(context));
		expect(ledgerOf(contextWith(undefined))).not.toBe(ledgerOf(context));
	});
});

describe("the same caller, whichever way From's picker names the agent", () => {
	const caller = (picker: string, agentId?: string) => ({
		...(agentId ? { agentId } : {}),
		from: '+14155550100',
		picker,
	});
	const saved = (fields: Partial<CallRecord>): CallRecord => ({ ...record('placed'), ...fields });

	test.each([
		[
			'the same agent by another mode',
			saved({ agent: 'agt_1', from: '+14155550100' }),
			caller('name:Front Desk', 'agt_1'),
			true,
		],
		[
			'the same number by phone number',
			saved({ agent: 'agt_1', from: '+14155550100' }),
			caller('phoneNumber:+14155550100'),
			true,
		],
		[
			'another agent and number',
			saved({ agent: 'agt_2', from: '+14155550199' }),
			caller('id:agt_1', 'agt_1'),
			false,
		],
		[
			'saved before the ledger (any agent)',
			saved({ agent: '' }),
			caller('id:agt_9', 'agt_9'),
			true,
		],
		[
			'saved from the list, now by ID',
			saved({ agent: 'list:agt_1' }),
			caller('id:agt_1', 'agt_1'),
			true,
		],
		[
			'saved by ID, now by name',
			saved({ agent: 'id:agt_1' }),
			caller('name:Front Desk', 'agt_1'),
			true,
		],
		[
			'saved by phone number, now from the list',
			saved({ agent: 'phoneNumber:+14155550100' }),
			caller('list:agt_1', 'agt_1'),
			true,
		],
		[
			'saved by name, now by the same name',
			saved({ agent: 'name:Front Desk' }),
			caller('name:Front Desk', 'agt_1'),
			true,
		],
		[
			'saved by name, now by ID: not known to be the same',
			saved({ agent: 'name:Front Desk' }),
			caller('id:agt_1', 'agt_1'),
			false,
		],
		[
			'saved from the list, another agent now',
			saved({ agent: 'list:agt_2' }),
			caller('list:agt_1', 'agt_1'),
			false,
		],
	])('%s', (_label, saved, item, same) => {
		expect(sameCaller(saved, item)).toBe(same);
	});
});
