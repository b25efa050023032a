/**
 * The Call History Trigger's backfill edge (Start From → Last Days): a call created inside the last days is
 * never taken for an older one, whatever form the service writes its `created_at` in.
 */
import { createdBefore } from '../../../nodes/VoiceAgentCallHistoryTrigger/settings';

const cutoff = Date.parse('2026-11-20T12:00:00Z');
const call = (createdAt: unknown) => ({ id: 'call-1', created_at: createdAt }) as never;

describe('createdBefore (the start of Last Days)', () => {
	test.each([
		['2026-11-20T11:59:59Z', true],
		['2026-11-20T12:00:00Z', false],
		['2026-11-20T13:00:00+02:00', true],
		['Fri, 20 Nov 2026 11:00:00 GMT', true],
		['Fri, 20 Nov 2026 12:30:00 GMT', false],
	])('%s before the cutoff: %s', (createdAt, before) => {
		expect(createdBefore(cutoff)(call(createdAt))).toBe(before);
	});

	test('a time without a zone is read at its latest (UTC−12:00): 10:00 on the cutoff day is kept, since it may be 22:00 UTC', () => {
		expect(createdBefore(cutoff)(call('2026-11-20T10:00:00'))).toBe(false);
		expect(createdBefore(cutoff)(call('2026-11-19T23:59:59'))).toBe(true);
	});

	test('a time that cannot be read is never taken for an old one', () => {
		for (const createdAt of [undefined, null, '', 'yesterday', 1_763_640_000]) {
			expect(createdBefore(cutoff)(call(createdAt))).toBe(false);
		}
	});
});
