/** The one decoder of calls: the documented and the live service's wire formats as one model. */
import { hasEnded, isLive, surelyEnded } from '../../../../nodes/shared/callStatus';
import {
	decodeCall,
	describeNotCall,
	systemMessagesOf,
} from '../../../../nodes/shared/decode/call';
import { decodeCreatedCall } from '../../../../nodes/shared/decode/createdCall';
import { wireIdOf } from '../../../../nodes/shared/decode/ids';

const DOCUMENTED = {
	id: 'call_3f09a1c27be4d805',
	agent_id: 'agt_1',
	from: '+14155550100',
	to: '+14155550123',
	context: 'Remind Ana',
	status: 'completed',
	created_at: '2026-11-22T10:15:30.123Z',
	ended_at: '2026-11-22T10:17:30.123Z',
	duration: 120,
	transcript: [
		{ speaker: 'agent', text: 'Hello Ana' },
		{ speaker: 'customer', text: 'Hi' },
	],
};

/** A live-service row as its Go server encodes it (numeric ids, no status/from/to/duration). */
function liveRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: 5001,
		created_at: '2024-05-16T21:32:38.200158Z',
		updated_at: '2024-05-16T21:32:38.200158Z',
		deleted_at: null,
		user_id: 7,
		agent_id: 42,
		in_progress: false,
		started_at: '0001-01-01T00:00:00Z',
		ended_at: '0001-01-01T00:00:00Z',
		time_seconds: 0,
		client_number: '',
		context: 'Remind Ana',
		twilio_sid: 'CA123',
		recording_sid: '',
		sentiment: 0,
		average_latency_ms: 0,
		user_speaks_first: false,
		disconnect_reason: '',
		transcript: null,
		...overrides,
	};
}

const CREATED_MS = Date.parse('2024-05-16T21:32:38.200158Z');

describe('a documented call', () => {
	test('is the model as it is: nothing derived, nothing lost', () => {
		expect(decodeCall(DOCUMENTED)).toEqual(DOCUMENTED);
	});

	test('JSON sent as text (text/plain with a trailing newline) is read by its content', () => {
		expect(decodeCall(`${JSON.stringify(DOCUMENTED)}\n`)).toEqual(DOCUMENTED);
		expect(decodeCall(Buffer.from(JSON.stringify(DOCUMENTED)))).toEqual(DOCUMENTED);
	});

	test('a status that is not text, no id, or no object is no call, and says why', () => {
		expect(decodeCall({ ...DOCUMENTED, status: { value: 'x' } })).toBeUndefined();
		expect(decodeCall({ status: 'completed' })).toBeUndefined();
		expect(decodeCall(null)).toBeUndefined();
		expect(decodeCall('<html>sign in</html>')).toBeUndefined();
		expect(describeNotCall('<html>sign in</html>', 'x')).toBe('text that is not JSON');
		expect(describeNotCall({ status: 'completed' }, 'x')).toBe("an object without the call's id");
		expect(describeNotCall({ ...DOCUMENTED, id: 'other' }, DOCUMENTED.id)).toBe('another call');
		expect(describeNotCall([DOCUMENTED], DOCUMENTED.id)).toBe('a list');
	});
});

describe('a live-service call', () => {
	test('numeric ids are text in the model, and go back as numbers', () => {
		const call = decodeCall(liveRow()) as NonNullable<ReturnType<typeof decodeCall>>;
		expect(call.id).toBe('5001');
		expect(call.agent_id).toBe('42');
		expect(call.user_id).toBe('7');
		expect(wireIdOf(call)).toBe(5001);
		// An id only typed as text (never decoded) goes back as text.
		expect(wireIdOf({ id: '5001' })).toBe('5001');
	});

	test('ringing: no end (the zero time is none), not connected, no number, no transcript yet', () => {
		const call = decodeCall(liveRow(), { serviceNowMs: CREATED_MS + 5_000 });
		expect(call).toMatchObject({
			status: 'ringing',
			ended_at: null,
			started_at: null,
			duration: null,
			transcript: null,
		});
		expect(call).not.toHaveProperty('to');
		expect(isLive(call!)).toBe(true);
		expect(surelyEnded(call!)).toBe(false);
	});

	test('a call still not connected ten minutes after it was created (by the service clock) never connected: an end', () => {
		const justBefore = decodeCall(liveRow(), { serviceNowMs: CREATED_MS + 599_999 });
		const after = decodeCall(liveRow(), { serviceNowMs: CREATED_MS + 600_000 });
		const unknownClock = decodeCall(liveRow());
		expect(justBefore?.status).toBe('ringing');
		expect(unknownClock?.status).toBe('ringing');
		expect(after?.status).toBe('not_connected');
		expect(hasEnded(after!)).toBe(true);
		expect(surelyEnded(after!)).toBe(true);
	});

	test('connected: in progress, with the number called as `to`', () => {
		const call = decodeCall(
			liveRow({
				in_progress: true,
				client_number: '+14155550123',
				started_at: '2024-05-16T21:32:41Z',
			}),
			{ serviceNowMs: CREATED_MS + 3_600_000 },
		);
		expect(call).toMatchObject({
			status: 'in_progress',
			to: '+14155550123',
			client_number: '+14155550123',
			started_at: '2024-05-16T21:32:41Z',
			ended_at: null,
		});
		expect(isLive(call!)).toBe(true);
	});

	test('ended: completed, its duration from time_seconds, its chat transcript as turns without the system message', () => {
		const call = decodeCall(
			liveRow({
				client_number: '+14155550123',
				ended_at: '2024-05-16T21:34:40.5Z',
				time_seconds: 118.25,
				disconnect_reason: 'user_hangup',
				transcript: [
					{ role: 'system', content: 'You remind patients.\nExtra Context: Remind Ana' },
					{ role: 'assistant', content: 'Hello Ana' },
					{ role: 'user', content: 'Hi' },
					{ role: 'user', content: 'who is this?' },
					{ role: 'assistant', content: '' },
				],
			}),
		);
		expect(call).toMatchObject({
			status: 'completed',
			to: '+14155550123',
			duration: 118.25,
			ended_at: '2024-05-16T21:34:40.5Z',
			disconnect_reason: 'user_hangup',
			transcript: [
				{ speaker: 'agent', text: 'Hello Ana' },
				{ speaker: 'customer', text: 'Hi' },
				{ speaker: 'customer', text: 'who is this?' },
				{ speaker: 'agent', text: '' },
			],
		});
		expect(JSON.stringify(call)).not.toContain('You remind patients');
		expect(systemMessagesOf(call!)).toEqual(['You remind patients.\nExtra Context: Remind Ana']);
		expect(hasEnded(call!)).toBe(true);
	});

	test('a call marked in progress that has an end time has ended', () => {
		const call = decodeCall(liveRow({ in_progress: true, ended_at: '2024-05-16T21:34:40Z' }));
		expect(call?.status).toBe('completed');
	});
});

describe("POST /call's answer", () => {
	test('the call when the body is one, of either format', () => {
		expect(decodeCreatedCall(DOCUMENTED).call?.id).toBe(DOCUMENTED.id);
		expect(decodeCreatedCall(`${JSON.stringify(liveRow({ id: 5002 }))}\n`).call?.id).toBe('5002');
	});

	test('only a hint when the body names the call under another name; nothing when it names none', () => {
		expect(decodeCreatedCall({ status: 'success', call_id: 'call_9' })).toEqual({
			hintedId: 'call_9',
		});
		expect(decodeCreatedCall({ status: 'success', call_id: 77 })).toEqual({ hintedId: '77' });
		expect(decodeCreatedCall(null)).toEqual({});
		expect(decodeCreatedCall('')).toEqual({});
	});
});
