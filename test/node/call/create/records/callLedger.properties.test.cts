/**
 * The counters and the index kept beside the ledger's records answer what a scan of the records would,
 * after any sequence of claims, moves forward, ends seen, and saves read back (n8n saves the ledger with
 * the execution and *Retry execution* reads a copy of it): Max Calls per Run counts every record that may
 * have phoned someone and counts for itself, and a call seen to end ends every placed record naming it.
 */
import fc from 'fast-check';

import {
	advance,
	callsCounted,
	claimSlot,
	markEnded,
} from '../../../../../nodes/VoiceAgent/actions/call/create/records/callLedger';
import type {
	CallLedger,
	CallRecord,
} from '../../../../../nodes/VoiceAgent/actions/call/create/model';
import { propertyParameters } from '../../../../support/properties.cts';

const RUNS = 300;
const MAY_HAVE_CALLED = ['claimed', 'sent', 'placed', 'unnamed', 'unknown', 'ended'];
const NEXT: Record<string, string[]> = {
	claimed: ['sent', 'notSent', 'skipped'],
	sent: ['placed', 'unnamed', 'unknown', 'notSent'],
	unnamed: ['placed'],
	unknown: ['placed'],
	placed: ['ended'],
};

/** What Max Calls per Run must read: a scan of every record, as the docs word it. */
const scanned = (ledger: CallLedger) =>
	Object.values(ledger.records).filter(
		(record) => MAY_HAVE_CALLED.includes(record.state) && record.sameCallAs === undefined,
	).length;

type Step =
	| { kind: 'claim'; slot: number; state: 'claimed' | 'unknown' | 'skipped'; shares: boolean }
	| { kind: 'advance'; slot: number; choice: number; call: number }
	| { kind: 'end'; call: number }
	| { kind: 'save' };

const step: fc.Arbitrary<Step> = fc.oneof(
	fc.record({
		kind: fc.constant('claim' as const),
		slot: fc.nat(5),
		state: fc.constantFrom('claimed' as const, 'unknown' as const, 'skipped' as const),
		shares: fc.boolean(),
	}),
	fc.record({
		kind: fc.constant('advance' as const),
		slot: fc.nat(5),
		choice: fc.nat(3),
		call: fc.nat(3),
	}),
	fc.record({ kind: fc.constant('end' as const), call: fc.nat(3) }),
	fc.record({ kind: fc.constant('save' as const) }),
);

test('the count and the ends seen match a scan of the records after any steps and saves', () => {
	fc.assert(
		fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
			let ledger: CallLedger = { records: {}, sentAt: [] };
			for (const next of steps) {
				if (next.kind === 'save') {
					ledger = JSON.parse(JSON.stringify(ledger)) as CallLedger;
				} else if (next.kind === 'claim') {
					const record: CallRecord = {
						agent: 'id:agent_1',
						to: `+1415555100${next.slot}`,
						state: next.state,
						executionId: '1',
						...(next.state === 'skipped' ? { callId: 'call_0' } : {}),
						...(next.state === 'unknown' && next.shares ? { sameCallAs: '0:0' } : {}),
					};
					claimSlot(ledger, `0:${next.slot}`, record);
				} else if (next.kind === 'advance') {
					const record = ledger.records[`0:${next.slot}`];
					const states = record ? (NEXT[record.state] ?? []) : [];
					if (states.length === 0) continue;
					const state = states[next.choice % states.length] as CallRecord['state'];
					advance(record, state, state === 'placed' ? `call_${next.call}` : undefined);
				} else {
					const placed = Object.values(ledger.records).filter(
						(record) => record.callId === `call_${next.call}` && record.state === 'placed',
					);
					markEnded(ledger, `call_${next.call}`);
					expect(placed.every((record) => record.state === 'ended')).toBe(true);
				}
				expect(callsCounted(ledger)).toBe(scanned(ledger));
			}
		}),
		propertyParameters(RUNS),
	);
});
