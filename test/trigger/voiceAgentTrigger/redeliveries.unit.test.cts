/**
 * The Voice Agent Trigger's memory of accepted events, as a pure unit: bounded per trigger and in the
 * number of triggers. The engine suite ./redeliveries.test.cts proves the behaviour over HTTP.
 */
import {
	beginHandling,
	forget,
	recordHandled,
	settle,
	stateOf,
	untilSettled,
} from '../../../nodes/VoiceAgentTrigger/redeliveries';

const handled = (trigger: string, key: string) => stateOf(trigger, key)?.inFlight === false;

describe('the memory of events', () => {
	test('claims an event once per trigger: in flight until settled', () => {
		expect(beginHandling('unit-a', 'k1')).toBe(true);
		expect(beginHandling('unit-a', 'k1')).toBe(false);
		expect(beginHandling('unit-b', 'k1')).toBe(true);
		expect(stateOf('unit-a', 'k1')).toEqual({ inFlight: true });
		expect(stateOf('unit-a', 'k2')).toBeUndefined();
	});

	test('a 2xx answer records the event as handled, with the answer given; any other answer forgets it', () => {
		beginHandling('unit-settle', 'ok');
		beginHandling('unit-settle', 'failed');
		const answer = { status: 200, contentType: 'application/json', body: '{"result":"x"}' };

		settle('unit-settle', 'ok', 200, answer);
		settle('unit-settle', 'failed', 500, undefined);

		expect(stateOf('unit-settle', 'ok')).toEqual({ inFlight: false, answer });
		expect(stateOf('unit-settle', 'failed')).toBeUndefined();
		expect(beginHandling('unit-settle', 'failed')).toBe(true);
	});

	test('an answer larger than 64 KiB is not kept; the event still counts as handled', () => {
		beginHandling('unit-large', 'k');
		settle('unit-large', 'k', 200, {
			status: 200,
			contentType: undefined,
			body: 'x'.repeat(65_537),
		});
		expect(stateOf('unit-large', 'k')).toEqual({ inFlight: false });
	});

	test('settling an event that is not in flight changes nothing', () => {
		recordHandled('unit-late', 'k');
		settle('unit-late', 'k', 500, undefined);
		expect(handled('unit-late', 'k')).toBe(true);
		forget('unit-late', 'k');
		settle('unit-late', 'k', 200, undefined);
		expect(stateOf('unit-late', 'k')).toBeUndefined();
	});

	test('keeps the last 1000 events of a trigger: the oldest is forgotten first', () => {
		for (let index = 0; index < 1001; index++) recordHandled('unit-many', `event ${index}`);

		expect(handled('unit-many', 'event 0')).toBe(false);
		expect(handled('unit-many', 'event 1')).toBe(true);
		expect(handled('unit-many', 'event 1000')).toBe(true);
	});

	test('keeps 200 triggers: the one least recently used is forgotten first', () => {
		recordHandled('unit-old', 'x');
		recordHandled('unit-busy', 'x');
		for (let index = 0; index < 199; index++) {
			recordHandled(`unit-other ${index}`, 'x');
			recordHandled('unit-busy', `y ${index}`);
		}

		expect(handled('unit-old', 'x')).toBe(false);
		expect(handled('unit-busy', 'x')).toBe(true);
	});
});

describe('waiting for an event in flight', () => {
	test('ends as soon as the run is settled, either way; at once for an event not in flight', async () => {
		beginHandling('unit-wait', 'ok');
		beginHandling('unit-wait', 'failed');
		const started = Date.now();
		const waits = [
			untilSettled('unit-wait', 'ok', 10_000),
			untilSettled('unit-wait', 'failed', 10_000),
		];
		settle('unit-wait', 'ok', 200, undefined);
		settle('unit-wait', 'failed', 500, undefined);
		await Promise.all(waits);
		await untilSettled('unit-wait', 'never seen', 10_000);

		expect(Date.now() - started).toBeLessThan(1_000);
		expect(handled('unit-wait', 'ok')).toBe(true);
		expect(stateOf('unit-wait', 'failed')).toBeUndefined();
	});

	test('ends after its time when the run is still under way, which stays in flight', async () => {
		beginHandling('unit-wait-long', 'k');
		const started = Date.now();
		await untilSettled('unit-wait-long', 'k', 200);

		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
		expect(stateOf('unit-wait-long', 'k')).toEqual({ inFlight: true });
	});
});

describe('the answers kept for redelivered tool calls', () => {
	test('at most 8 MiB in a process: past it, a handled event is remembered without its answer', () => {
		const body = 'x'.repeat(60 * 1024);
		const trigger = 'https://n8n.example.com/webhook/kept/events';
		for (let index = 0; index < 200; index++) {
			expect(beginHandling(trigger, `key-${index}`)).toBe(true);
			settle(trigger, `key-${index}`, 200, { status: 200, contentType: 'application/json', body });
		}
		const kept = Array.from({ length: 200 }, (_, index) => stateOf(trigger, `key-${index}`));
		expect(kept.every((state) => state?.inFlight === false)).toBe(true);
		const withAnswer = kept.filter((state) => state?.inFlight === false && state.answer).length;
		expect(withAnswer).toBe(Math.floor((8 * 1024 * 1024) / (60 * 1024)));
	});
});
