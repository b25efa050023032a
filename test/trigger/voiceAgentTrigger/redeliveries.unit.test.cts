/**
 * The Voice Agent Trigger's memory of accepted events, as a pure unit: bounded per trigger and in the
 * number of triggers. The engine suite ./redeliveries.test.cts proves the behaviour over HTTP.
 */
import { acceptOnce, dedupeKey, wasAccepted } from '../../../nodes/VoiceAgentTrigger/redeliveries';

describe('the memory of accepted events', () => {
	test('accepts an event once per trigger', () => {
		expect(acceptOnce('unit-a', 'k1')).toBe(true);
		expect(acceptOnce('unit-a', 'k1')).toBe(false);
		expect(acceptOnce('unit-b', 'k1')).toBe(true);
		expect(wasAccepted('unit-a', 'k1')).toBe(true);
		expect(wasAccepted('unit-a', 'k2')).toBe(false);
	});

	test('keeps the last 1000 events of a trigger: the oldest is forgotten first', () => {
		for (let index = 0; index < 1001; index++) acceptOnce('unit-many', `event ${index}`);

		expect(wasAccepted('unit-many', 'event 0')).toBe(false);
		expect(wasAccepted('unit-many', 'event 1')).toBe(true);
		expect(wasAccepted('unit-many', 'event 1000')).toBe(true);
	});

	test('keeps 200 triggers: the one least recently used is forgotten first', () => {
		acceptOnce('unit-old', 'x');
		acceptOnce('unit-busy', 'x');
		for (let index = 0; index < 199; index++) {
			acceptOnce(`unit-other ${index}`, 'x');
			acceptOnce('unit-busy', `y ${index}`);
		}

		expect(wasAccepted('unit-old', 'x')).toBe(false);
		expect(wasAccepted('unit-busy', 'x')).toBe(true);
	});
});

describe('the dedupe key', () => {
	test('ignores the order of keys, and the data of events other than tool calls', () => {
		const base = { event_type: 'call_ended', call_id: 'c', timestamp: 't' };
		expect(dedupeKey({ ...base, data: { a: 1 } })).toBe(dedupeKey({ ...base, data: { b: 2 } }));
		const tool = { event_type: 'tool_call', call_id: 'c', timestamp: 't' };
		expect(dedupeKey({ ...tool, data: { name: 'n', arguments: { x: 1, y: 2 } } })).toBe(
			dedupeKey({ ...tool, data: { arguments: { y: 2, x: 1 }, name: 'n' } }),
		);
		expect(dedupeKey({ ...tool, data: { name: 'n', arguments: { x: 1 } } })).not.toBe(
			dedupeKey({ ...tool, data: { name: 'n', arguments: { x: 2 } } }),
		);
	});
});
