import type { IDataObject } from 'n8n-workflow';

import type { Outcome } from '../attempts/callAgain';

/** E.g. `Calls: 9 placed (7 ended, 2 retry due), 3 deferred, 1 failed`: only counts above 0. */
function hint(placed: number, ofThem: Array<[number, string]>, others: Array<[number, string]>) {
	const seen = ofThem.filter(([count]) => count > 0).map(([count, label]) => `${count} ${label}`);
	const rest = others.filter(([count]) => count > 0).map(([count, label]) => `${count} ${label}`);
	const first = `${placed} placed${seen.length > 0 ? ` (${seen.join(', ')})` : ''}`;
	return `Calls: ${[first, ...rest].join(', ')}`;
}

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
