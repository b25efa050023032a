import type { IDataObject } from 'n8n-workflow';

import { isOutcomeUnknown } from '../../../shared/errors';

/**
 * What happened to a lead, one per output item of Call → Create (node version 1.3): a user maps it and
 * `next_call_at` straight into a CRM or a table.
 */
export type Outcome = 'placed' | 'ended' | 'retry_due' | 'deferred' | 'skipped' | 'failed';

const HINT_ORDER: ReadonlyArray<[Outcome, string]> = [
	['placed', 'placed'],
	['ended', 'ended'],
	['retry_due', 'retry due'],
	['deferred', 'deferred'],
	['skipped', 'skipped'],
	['failed', 'failed'],
];

/** The outcome fields of an item that failed, output with "On Error → Continue". */
export function failedOutcome(error: unknown, attempt: number): IDataObject {
	return {
		outcome: 'failed',
		failure: isOutcomeUnknown(error) ? 'may_have_been_placed' : 'not_placed',
		attempt,
	};
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
		const outcome = json.outcome as Outcome | undefined;
		if (outcome) this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
	}

	fail(): void {
		this.legacy.failed++;
		this.outcomes.set('failed', (this.outcomes.get('failed') ?? 0) + 1);
	}

	get message(): string {
		if (!this.byOutcome) {
			const { placed, ended, failed, skipped } = this.legacy;
			return `Calls: ${placed} placed, ${ended} ended, ${failed} failed, ${skipped} skipped`;
		}
		const counts = HINT_ORDER.map(
			([outcome, label]) => `${this.outcomes.get(outcome) ?? 0} ${label}`,
		);
		return `Calls: ${counts.join(', ')}`;
	}
}
