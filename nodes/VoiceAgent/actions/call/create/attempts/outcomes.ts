import type { IDataObject } from 'n8n-workflow';

import { isOutcomeUnknown } from '../../../../../shared/errors';
import { mayHaveCalled, type CallRecord } from '../records/callLedger';

/** Node version 1.3 brought Calling Hours, Call Again and the outcome fields. */
export const OUTCOMES_VERSION = 1.3;
export const fromVersion13 = { show: { '@version': [{ _cnd: { gte: OUTCOMES_VERSION } }] } };

/**
 * What happened to a lead, one per output item of Call → Create (node version 1.3): a user maps it and
 * `next_call_at` straight into a CRM or a table.
 */
export type Outcome = 'placed' | 'ended' | 'retry_due' | 'deferred' | 'skipped' | 'failed';

/** The fields every item of Call → Create carries from version 1.3: what happened, and to which attempt. */
export function outcomeFields(
	outcome: Outcome,
	attempt: number,
	more: IDataObject = {},
): IDataObject {
	return { outcome, attempt, ...more };
}

/**
 * The node's hint: the calls placed first, with how many of them were seen to end (or are due again),
 * then the items that placed nothing, each count only when there is one: `Calls: 1 placed (1 ended)`,
 * `Calls: 9 placed (7 ended, 2 retry due), 3 deferred, 1 failed`.
 */
function hint(placed: number, ofThem: Array<[number, string]>, others: Array<[number, string]>) {
	const seen = ofThem.filter(([count]) => count > 0).map(([count, label]) => `${count} ${label}`);
	const rest = others.filter(([count]) => count > 0).map(([count, label]) => `${count} ${label}`);
	const first = `${placed} placed${seen.length > 0 ? ` (${seen.join(', ')})` : ''}`;
	return `Calls: ${[first, ...rest].join(', ')}`;
}

/**
 * The outcome fields of an item that failed, output with "On Error → Continue". `record` is the item's
 * record in the ledger: a call it may have placed (e.g. one still going on when Max Wait failed the item)
 * makes the failure "may have been placed", with its ID when known, so a CRM never calls again blindly.
 */
export function failedOutcome(
	error: unknown,
	attempt: number,
	record: CallRecord | undefined,
): IDataObject {
	const placed = mayHaveCalled(record) || isOutcomeUnknown(error);
	return outcomeFields('failed', attempt, {
		failure: placed ? 'may_have_been_placed' : 'not_placed',
		...(placed && record?.callId ? { call_id: record.callId } : {}),
	});
}

/** How the items of a run came out, for the node's hint. */
export class Progress {
	private readonly outcomes = new Map<Outcome, number>();
	/** Versions before 1.3 count placed (ended included), ended, failed and skipped. */
	private readonly legacy = { placed: 0, ended: 0, failed: 0, skipped: 0 };

	constructor(private readonly byOutcome: boolean) {}

	count(json: IDataObject): void {
		if (json.skipped === true) this.legacy.skipped++;
		else this.legacy.placed++;
		if (json.ended === true) this.legacy.ended++;
		// A lead skipped for a call placed before (a re-run) is told as skipped, whatever that call's outcome.
		const outcome = json.skipped === true ? 'skipped' : (json.outcome as Outcome | undefined);
		if (outcome) this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
	}

	fail(): void {
		this.legacy.failed++;
		this.outcomes.set('failed', (this.outcomes.get('failed') ?? 0) + 1);
	}

	get message(): string {
		if (!this.byOutcome) {
			const { placed, ended, failed, skipped } = this.legacy;
			return hint(
				placed,
				[[ended, 'ended']],
				[
					[skipped, 'skipped'],
					[failed, 'failed'],
				],
			);
		}
		const count = (outcome: Outcome) => this.outcomes.get(outcome) ?? 0;
		const placed = count('placed') + count('ended') + count('retry_due');
		return hint(
			placed,
			[
				[count('ended'), 'ended'],
				[count('retry_due'), 'retry due'],
			],
			[
				[count('deferred'), 'deferred'],
				[count('skipped'), 'skipped'],
				[count('failed'), 'failed'],
			],
		);
	}
}
