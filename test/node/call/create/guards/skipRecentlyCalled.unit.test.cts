/** When a call counts as recent for Skip If Called Within (Minutes): the service's clock only. */
import { recentCallReason } from '../../../../../nodes/VoiceAgent/actions/call/create/guards/skipRecentlyCalled';
import type { CallSummary } from '../../../../../nodes/shared/types';

const ended = (createdAt: string): CallSummary => ({
	id: 'call_1',
	agent_id: 'agt_1',
	client_number: '+14155550123',
	context: '',
	status: 'completed',
	created_at: createdAt,
});

// The service's Date header has whole seconds, its created_at milliseconds.
const answeredAt = 'Mon, 23 Nov 2026 10:15:00 GMT';

test('a call that began within the window is recent, measured from the Date of the same answer', () => {
	expect(recentCallReason(ended('2026-11-23T10:00:30.000Z'), answeredAt, 15)).toBe(
		'Call call_1 of agent agt_1 to +14155550123 began 14 min 30 s ago, so it was not called again (Skip If Called Within (Minutes): 15)',
	);
});

test('a call that began before the window is not', () => {
	expect(recentCallReason(ended('2026-11-23T10:00:00.000Z'), answeredAt, 15)).toBeUndefined();
});

test('a call created in the second the answer is dated (after it, by its milliseconds) is 0 s old', () => {
	expect(recentCallReason(ended('2026-11-23T10:15:00.700Z'), answeredAt, 1)).toMatch(
		/began 0 min 0 s ago/,
	);
});

test('a time that cannot be read counts as recent: the node does not phone when in doubt', () => {
	expect(recentCallReason(ended('yesterday'), answeredAt, 15)).toBe(
		`Call call_1 of agent agt_1 to +14155550123 began at "yesterday", a time that could not be compared with the service's time of answering ("${answeredAt}"), so it was not called again (Skip If Called Within (Minutes): 15)`,
	);
	expect(recentCallReason(ended('2026-11-23T10:00:30.000Z'), undefined, 15)).toMatch(
		/could not be compared with the service's time of answering \(null\)/,
	);
});

test('a call in progress is recent whatever its age', () => {
	const live = { ...ended('2026-01-01T00:00:00.000Z'), status: 'in_progress' };
	expect(recentCallReason(live, answeredAt, 1)).toMatch(/is still in progress/);
});
