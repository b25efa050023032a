/** The one rule for "has this call ended", which every node uses. */
import { hasEnded, isLive } from '../../../nodes/shared/callStatus';

describe('hasEnded', () => {
	test.each([
		'completed',
		'failed',
		'busy',
		'no-answer',
		'canceled',
		'voicemail',
		'COMPLETED',
		'error',
	])('a call whose status is %s has ended', (status) => {
		expect(hasEnded({ status })).toBe(true);
		expect(isLive({ status })).toBe(false);
	});

	test.each([
		'in_progress',
		'in-progress',
		'queued',
		'ringing',
		'initiated',
		'ongoing',
		' In_Progress ',
	])('a call whose status is %j is live', (status) => {
		expect(hasEnded({ status })).toBe(false);
	});

	test('an end time says the call ended, whatever its status says', () => {
		expect(hasEnded({ status: 'in_progress', ended_at: '2026-11-25T10:00:00Z' })).toBe(true);
		expect(hasEnded({ status: 'in_progress', ended_at: null })).toBe(false);
		expect(hasEnded({ status: 'in_progress', ended_at: '' })).toBe(false);
	});

	test('a call with no status and no end time is taken as going on', () => {
		expect(hasEnded({})).toBe(false);
		expect(hasEnded({ status: '' })).toBe(false);
		expect(hasEnded({ status: 42 })).toBe(false);
	});
});
