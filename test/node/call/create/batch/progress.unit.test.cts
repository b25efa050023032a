/**
 * The node's hint after Call → Create: the calls placed, with how many of them ended or are due again,
 * then what placed nothing, each count only when there is one.
 */
import type { IDataObject } from 'n8n-workflow';

import { Progress } from '../../../../../nodes/VoiceAgent/actions/call/create/batch/progress';

function hintOf(byOutcome: boolean, items: IDataObject[], failures = 0): string {
	const progress = new Progress(byOutcome);
	for (const json of items) progress.count(json);
	for (let failure = 0; failure < failures; failure++) progress.fail();
	return progress.message;
}

describe('from node version 1.3, by outcome', () => {
	test('one call placed and seen to end: "1 placed (1 ended)"', () => {
		expect(hintOf(true, [{ outcome: 'ended', ended: true }])).toBe('Calls: 1 placed (1 ended)');
	});

	test('a call placed without waiting: placed, nothing more', () => {
		expect(hintOf(true, [{ outcome: 'placed' }])).toBe('Calls: 1 placed');
	});

	test('every outcome at once, in the order a builder reads them', () => {
		const items = [
			...Array(7).fill({ outcome: 'ended', ended: true }),
			...Array(2).fill({ outcome: 'retry_due', ended: true }),
			{ outcome: 'placed', ended: false },
			...Array(3).fill({ outcome: 'deferred', deferred: true }),
			{ outcome: 'skipped', skipped: true },
		];
		expect(hintOf(true, items, 1)).toBe(
			'Calls: 10 placed (7 ended, 2 retry due), 3 deferred, 1 skipped, 1 failed',
		);
	});

	test('nothing dialled: the leads outside their hours say so', () => {
		expect(hintOf(true, [{ outcome: 'deferred' }])).toBe('Calls: 0 placed, 1 deferred');
	});

	test("a re-run that finds its attempt's own call counts as skipped, not as placed", () => {
		expect(hintOf(true, [{ outcome: 'ended', ended: true, skipped: true }])).toBe(
			'Calls: 0 placed, 1 skipped',
		);
	});
});

describe('before node version 1.3', () => {
	test('placed (ended among them), skipped and failed', () => {
		const items = [{ ended: true }, { ended: true }, {}, { skipped: true }];
		expect(hintOf(false, items, 1)).toBe('Calls: 3 placed (2 ended), 1 skipped, 1 failed');
	});
});
