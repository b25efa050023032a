/** The one decoder of webhook events: the documented and the live service's event shapes as one model. */
import { createHash } from 'node:crypto';

import { decodeCall } from '../../../../nodes/shared/decode/call';
import { decodeEvent } from '../../../../nodes/shared/decode/event';

/** A live call row as the live service's events carry it, ended. */
function liveCall(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: 5001,
		created_at: '2024-05-16T21:32:38.200158Z',
		updated_at: '2024-05-16T21:34:02.51Z',
		deleted_at: null,
		user_id: 7,
		agent_id: 42,
		in_progress: false,
		started_at: '2024-05-16T21:32:45.1Z',
		ended_at: '2024-05-16T21:34:02.5Z',
		time_seconds: 77.4,
		client_number: '+14155550123',
		context: 'Remind Ana',
		twilio_sid: 'CA123',
		recording_sid: 'RE123',
		sentiment: 8,
		average_latency_ms: 640,
		user_speaks_first: false,
		disconnect_reason: 'user_hangup',
		transcript: [
			{ role: 'system', content: 'You are Ana’s assistant' },
			{ role: 'assistant', content: 'Hello Ana' },
			{ role: 'user', content: 'Hi' },
		],
		...overrides,
	};
}

const connected = () =>
	liveCall({
		in_progress: true,
		ended_at: '0001-01-01T00:00:00Z',
		time_seconds: 0,
		sentiment: 0,
		recording_sid: '',
		disconnect_reason: '',
		transcript: null,
	});

function toolCall(id: string, name: string, args: string) {
	return { id, type: 'function', function: { name, arguments: args } };
}

/**
 * The documented key as earlier versions made it, written again from its description: SHA-256 of the JSON
 * (keys sorted) of [type, call_id, timestamp] (+ data for a tool call), its first 32 hex digits.
 */
function documentedKeyOracle(parts: unknown[]): string {
	const sorted = (value: unknown): unknown =>
		Array.isArray(value)
			? value.map(sorted)
			: value !== null && typeof value === 'object'
				? Object.fromEntries(
						Object.keys(value)
							.sort()
							.map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
					)
				: value;
	return createHash('sha256')
		.update(JSON.stringify(sorted(parts)))
		.digest('hex')
		.slice(0, 32);
}

describe('a documented event', () => {
	const ended = {
		event_type: 'call_ended',
		call_id: 'call_123',
		timestamp: '2026-11-22T10:15:30.123Z',
		data: { id: 'call_123', agent_id: 'agt_1', status: 'completed' },
	};

	test('is read as it is: name, call id, timestamp, data; no call of its own', () => {
		expect(decodeEvent(ended)).toEqual({
			shape: 'documented',
			eventType: 'call_ended',
			callId: 'call_123',
			timestamp: '2026-11-22T10:15:30.123Z',
			data: ended.data,
			dedupeKey: expect.stringMatching(/^[0-9a-f]{32}$/),
		});
	});

	test('keeps the dedupe key earlier versions gave it (keys users stored stay valid)', () => {
		expect(decodeEvent(ended)?.dedupeKey).toBe(
			documentedKeyOracle(['call_ended', 'call_123', '2026-11-22T10:15:30.123Z']),
		);
		// As version 0.1.0 computed it for this event.
		expect(
			decodeEvent({
				event_type: 'call_ended',
				call_id: 'call_123',
				timestamp: '2026-11-22T10:15:30.123Z',
				data: {},
			})?.dedupeKey,
		).toBe('a4d82f44a72686284ff9fcd525cecb0f');
		const tool = {
			event_type: 'tool_call',
			call_id: 'call_123',
			timestamp: '2026-11-22T10:15:30.123Z',
			data: { name: 'check_order', arguments: { order_id: '1042' } },
		};
		expect(decodeEvent(tool)?.dedupeKey).toBe('d622a0801a832c66ddf8ee40a8c9cc68');
		expect(decodeEvent(tool)?.dedupeKey).toBe(
			documentedKeyOracle(['tool_call', 'call_123', '2026-11-22T10:15:30.123Z', tool.data]),
		);
	});

	test('a tool call { name, arguments } is one tool call, its arguments as sent', () => {
		const event = decodeEvent({
			event_type: 'tool_call',
			call_id: 'c',
			timestamp: 't',
			data: { name: 'check_order', arguments: { order_id: '1042' } },
		});
		expect(event?.toolCalls).toEqual([
			{ id: null, name: 'check_order', arguments: { order_id: '1042' } },
		]);
		expect(
			decodeEvent({ event_type: 'tool_call', call_id: 'c', data: { name: 'hang_up' } })?.toolCalls,
		).toEqual([{ id: null, name: 'hang_up', arguments: {} }]);
	});

	test('JSON sent as text is read by its content', () => {
		expect(decodeEvent(`${JSON.stringify(ended)}\n`)).toEqual(decodeEvent(ended));
	});

	test('with both names, the documented one is read', () => {
		expect(decodeEvent({ ...ended, event: 'call_started' })?.eventType).toBe('call_ended');
	});
});

describe('a live event', () => {
	test('call_ended carries the whole call: decoded as every call is, its id as the call id', () => {
		const row = liveCall();
		const event = decodeEvent({ event: 'call_ended', call: row });

		expect(event).toEqual({
			shape: 'live',
			eventType: 'call_ended',
			callId: '5001',
			timestamp: '2024-05-16T21:34:02.5Z',
			data: {},
			call: decodeCall(row),
			dedupeKey: expect.stringMatching(/^[0-9a-f]{32}$/),
		});
		expect(event?.call).toMatchObject({
			id: '5001',
			agent_id: '42',
			status: 'completed',
			to: '+14155550123',
			duration: 77.4,
			transcript: [
				{ speaker: 'agent', text: 'Hello Ana' },
				{ speaker: 'customer', text: 'Hi' },
			],
		});
	});

	test('call_started: the call in progress, stamped with its start', () => {
		const event = decodeEvent({ event: 'call_started', call: connected() });
		expect(event).toMatchObject({
			eventType: 'call_started',
			callId: '5001',
			timestamp: '2024-05-16T21:32:45.1Z',
			call: { status: 'in_progress', ended_at: null, duration: null },
		});
	});

	test('tool_call: a list of OpenAI tool calls, arguments parsed from their JSON text', () => {
		const data = [
			toolCall('call_a', 'check_order', '{"order_id":"1042"}'),
			toolCall('call_b', 'lookup', 'not json'),
			toolCall('call_c', 'hang_up', ''),
		];
		const event = decodeEvent({ event: 'tool_call', call: connected(), data });

		expect(event?.data).toBe(data);
		expect(event?.timestamp).toBeNull();
		expect(event?.toolCalls).toEqual([
			{ id: 'call_a', name: 'check_order', arguments: { order_id: '1042' } },
			{ id: 'call_b', name: 'lookup', arguments: 'not json' },
			{ id: 'call_c', name: 'hang_up', arguments: {} },
		]);
	});

	test('action: one tool call', () => {
		const event = decodeEvent({
			event: 'action',
			call: connected(),
			data: toolCall('call_x', 'forward_to_sales', '{}'),
		});
		expect(event?.toolCalls).toEqual([{ id: 'call_x', name: 'forward_to_sales', arguments: {} }]);
	});

	test('an event whose call cannot be read has no call and no call id, and is still an event', () => {
		expect(decodeEvent({ event: 'call_ended', call: { in_progress: false } })).toMatchObject({
			eventType: 'call_ended',
			callId: null,
		});
		expect(decodeEvent({ event: 'call_ended' })?.call).toBeUndefined();
	});
});

describe('the live dedupe key', () => {
	const key = (body: unknown) => decodeEvent(body)?.dedupeKey;

	test('is the same for the same event whatever changed in the row since (a retry carries the row as it is then)', () => {
		const ended = liveCall();
		expect(key({ event: 'call_ended', call: ended })).toBe(
			key({
				event: 'call_ended',
				call: { ...ended, updated_at: '2024-05-16T21:40:00Z', sentiment: 3, transcript: [] },
			}),
		);
		// A call_started whose retry carries the call as it is once it has ended.
		expect(key({ event: 'call_started', call: connected() })).toBe(
			key({ event: 'call_started', call: ended }),
		);
	});

	test('tells events apart: by name, by call, and a call id a fresh database gave again', () => {
		const keys = [
			key({ event: 'call_started', call: liveCall() }),
			key({ event: 'call_ended', call: liveCall() }),
			key({ event: 'call_ended', call: liveCall({ id: 5002 }) }),
			key({ event: 'call_ended', call: liveCall({ ended_at: '2024-06-01T08:00:00Z' }) }),
			key({ event: 'call_started', call: liveCall({ started_at: '2024-06-01T07:59:00Z' }) }),
			key({ event: 'tool_call', call: connected(), data: [toolCall('call_a', 'x', '{}')] }),
			key({ event: 'tool_call', call: connected(), data: [toolCall('call_b', 'x', '{}')] }),
			key({ event: 'action', call: connected(), data: toolCall('call_a', 'x', '{}') }),
		];
		expect(new Set(keys).size).toBe(keys.length);
	});

	test('never equals a documented key of the same call', () => {
		expect(key({ event: 'call_ended', call: liveCall({ id: 'c' }) })).not.toBe(
			key({ event_type: 'call_ended', call_id: 'c' }),
		);
	});
});

describe('not an event', () => {
	test.each([
		['nothing', undefined],
		['an empty body as n8n gives it', {}],
		['an empty text', ''],
		['JSON cut short', '{"event":"call_ended","call":{"id":50'],
		['a list', [{ event: 'call_ended' }]],
		['text', 'call_ended'],
		['a number', 42],
		['null', null],
		['an event_type that is not text', { event_type: 42 }],
		['an empty event_type', { event_type: '', event: 'call_ended' }],
		['an empty event', { event: '' }],
		['an event that is not text', { event: 7, call: liveCall() }],
	])('%s', (_name, body) => {
		expect(decodeEvent(body)).toBeUndefined();
	});
});
