/**
 * Timestamps the contract leaves open never under-count: a `created_at` without a zone is read as the latest
 * instant it can name (its wall-clock time at UTC−12:00), whatever zone n8n runs in. The guard is also run
 * built (dist/, `npm run build`) in a Node.js process in Tokyo (UTC+9), where Date.parse reads such a time 9
 * hours early: Jest cannot move its own process to another zone.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { recentCallReason } from '../../../nodes/VoiceAgent/actions/call/create/guards/skipRecentlyCalled';
import { isNoTime, latestInstantOf } from '../../../nodes/shared/serviceTime';

const at = (iso: string) => Date.parse(iso);
const ROOT = path.resolve(__dirname, '../../..');

/** Runs `script` in a Node.js process whose zone is `zone`, with the built guards; its JSON output. */
function inZone(zone: string, script: string): unknown {
	const output = execFileSync(process.execPath, ['-e', script], {
		cwd: ROOT,
		env: { ...process.env, TZ: zone },
		encoding: 'utf8',
	});
	return JSON.parse(output);
}

describe('latestInstantOf', () => {
	test.each([
		['2026-11-27T10:15:30.123Z', '2026-11-27T10:15:30.123Z'],
		['2026-11-27T10:15:30.123+00:00', '2026-11-27T10:15:30.123Z'],
		['2026-11-27T05:15:30.123-05:00', '2026-11-27T10:15:30.123Z'],
		['2026-11-27T19:15:30.123+0900', '2026-11-27T10:15:30.123Z'],
		['2026-11-27T19:15:30.123+09', '2026-11-27T10:15:30.123Z'],
		['2026-11-27t10:15:30.123z', '2026-11-27T10:15:30.123Z'],
		['2026-11-27 10:15:30.123Z', '2026-11-27T10:15:30.123Z'],
	])('%s names the instant %s', (written, instant) => {
		expect(latestInstantOf(written)).toBe(at(instant));
	});

	test.each([
		['2026-11-27T10:15:30.123', '2026-11-27T22:15:30.123Z'],
		['2026-11-27T10:15:30', '2026-11-27T22:15:30.999Z'],
		['2026-11-27T10:15', '2026-11-27T22:15:59.999Z'],
		['2026-11-27', '2026-11-28T11:59:59.999Z'],
		['2026-11-27T10:15:30Z', '2026-11-27T10:15:30.999Z'],
	])('%s is at the latest %s: zone UTC−12:00, to the end of what it writes', (written, latest) => {
		expect(latestInstantOf(written)).toBe(at(latest));
	});

	test('a time without a zone is never earlier than in any zone n8n or the service may keep', () => {
		const written = '2026-11-27T10:15:30.123';
		for (const zone of ['Z', '+14:00', '+09:00', '-05:00', '-11:00', '-12:00']) {
			expect(latestInstantOf(written)).toBeGreaterThanOrEqual(at(`${written}${zone}`));
		}
	});

	test.each([
		'',
		'yesterday',
		'1764238530',
		'Fri, 27 Nov 2026 10:15:30 GMT',
		'2026-13-01T00:00:00Z',
		'2026-02-30T00:00:00Z',
		'2026-11-27T24:00:00Z',
		'2026-11-27T10:60:00Z',
	])('%j cannot be read: NaN, which the guards count as recent', (written) => {
		expect(latestInstantOf(written)).toBeNaN();
	});

	test.each([undefined, null, 1764238530000, {}])('%p is not a timestamp: NaN', (value) => {
		expect(latestInstantOf(value)).toBeNaN();
	});
});

describe('the skip window with a created_at without a zone (the guard, in this process)', () => {
	const call = (createdAt: string) => ({
		id: 'call_1',
		agent_id: 'agent_1',
		client_number: '+442079460123',
		context: '',
		status: 'completed',
		created_at: createdAt,
	});

	test('a call the service began 10 s ago (UTC, no zone) is recent, not 9 hours old', () => {
		const serviceNow = new Date(at('2026-11-27T10:00:10.000Z')).toUTCString();
		const reason = recentCallReason(call('2026-11-27T10:00:00.000'), serviceNow, 15);
		expect(reason).toBe(
			'Call call_1 of agent agent_1 to +442079460123 began 0 min 0 s ago, so it was not called again (Skip If Called Within (Minutes): 15)',
		);
	});

	test('with a zone, the age is exact: a call 16 minutes old is not within 15', () => {
		const serviceNow = new Date(at('2026-11-27T10:16:00.000Z')).toUTCString();
		expect(recentCallReason(call('2026-11-27T10:00:00.000Z'), serviceNow, 15)).toBeUndefined();
		expect(recentCallReason(call('2026-11-27T10:01:30.000Z'), serviceNow, 15)).toBe(
			'Call call_1 of agent agent_1 to +442079460123 began 14 min 30 s ago, so it was not called again (Skip If Called Within (Minutes): 15)',
		);
	});

	test('a time without a zone counts as recent for up to 12 hours past the window', () => {
		const serviceNow = (iso: string) => new Date(at(iso)).toUTCString();
		const created = call('2026-11-27T10:00:00.000');
		expect(recentCallReason(created, serviceNow('2026-11-27T22:14:59.000Z'), 15)).toBeDefined();
		expect(recentCallReason(created, serviceNow('2026-11-27T22:15:01.000Z'), 15)).toBeUndefined();
	});
});

describe('in a process in Tokyo (UTC+9), built', () => {
	const guard = './dist/nodes/VoiceAgent/actions/call/create/guards/skipRecentlyCalled.js';
	const call = {
		id: 'call_1',
		agent_id: 'agent_1',
		client_number: '+442079460123',
		context: '',
		status: 'completed',
		created_at: '2026-11-27T10:00:00.000',
	};

	test('Date.parse there reads a time without a zone 9 hours early', () => {
		const parsed = inZone('Asia/Tokyo', `console.log(Date.parse('2026-11-27T10:00:00.000'))`);
		expect(parsed).toBe(at('2026-11-27T01:00:00.000Z'));
	});

	test('a call the service began 10 s ago (UTC, no zone) is within the skip window there', () => {
		const serviceNow = new Date(at('2026-11-27T10:00:10.000Z')).toUTCString();
		const reason = inZone(
			'Asia/Tokyo',
			`const { recentCallReason } = require(${JSON.stringify(guard)});
			console.log(JSON.stringify(recentCallReason(${JSON.stringify(call)}, ${JSON.stringify(serviceNow)}, 15) ?? null))`,
		);
		expect(reason).toBe(
			'Call call_1 of agent agent_1 to +442079460123 began 0 min 0 s ago, so it was not called again (Skip If Called Within (Minutes): 15)',
		);
	});
});

describe('isNoTime', () => {
	test.each([
		null,
		undefined,
		'',
		'0001-01-01T00:00:00Z',
		'0001-01-01T00:00:00.000Z',
		'0001-01-01T00:00:00+00:00',
		'0001-01-01',
	])('%j names no time (the live service writes Go zero time for "not yet")', (value) => {
		expect(isNoTime(value)).toBe(true);
	});

	test.each(['2024-05-16T21:32:38Z', '0001-01-02T00:00:00Z', 'soon'])(
		'%j is a time (or text that is not "no time")',
		(value) => {
			expect(isNoTime(value)).toBe(false);
		},
	);
});
