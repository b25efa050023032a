/**
 * Call → Create → Options → Calling Hours (node version 1.3): a lead outside its window is not dialled
 * and is no error, it comes out deferred with the start of its next window; a window that closes while
 * an item waits for its turn defers it too. Run in n8n-core's real engine against the sandbox, with the
 * clock set per test (test/support/clock.cts): the number's own zone comes from libphonenumber's data.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { callsPosted, createAgent } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { hintsOf, jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 2_000 });

const NEW_YORK = '+12125550123';
const posts = () => callsPosted(sandbox);

let agent: any;
beforeEach(async () => {
	agent = await createAgent(sandbox, { name: 'Renewals' });
	await sandbox.clearRequests();
});
afterEach(restoreClock);

function create(hours: INodeParameters, options: INodeParameters = {}): INodeParameters {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agent.id),
		to: '={{ $json.phone }}',
		options: { callingHours: { hours }, ...options },
	};
}

const run = (parameters: INodeParameters, input: IDataObject[], typeVersion = 1.3) =>
	runWith(sandbox, parameters, { input, typeVersion });

describe("the number's own time zone (the default)", () => {
	test('on a Sunday night in New York, a weekday window defers the lead to Monday 09:00 EDT, after the clocks changed', async () => {
		// 2026-03-08 is the US spring-forward day: 01:30 EST is 06:30 UTC.
		setClock('2026-03-08T06:30:00Z');
		const lead = { name: 'Ada', phone: NEW_YORK, crm_id: 42 };

		const result = await run(create({}), [lead]);

		expect(jsonOf(result)).toEqual([
			{
				...lead,
				outcome: 'deferred',
				deferred: true,
				attempt: 1,
				call_id: '',
				next_call_at: '2026-03-09T09:00:00-04:00',
				reason: `${NEW_YORK} was not called: it is outside Calling Hours (Monday, Tuesday, Wednesday, Thursday, Friday 09:00–20:00 in America/New_York), and it opens next at 2026-03-09T09:00:00-04:00.`,
			},
		]);
		expect(await posts()).toBe(0);
		expect(hintsOf(result)).toEqual(['Calls: 0 placed, 1 deferred']);
	});

	test('inside the window the lead is called, and says so', async () => {
		setClock('2026-03-09T14:00:00Z'); // Monday 10:00 EDT
		const [call] = jsonOf(await run(create({}), [{ phone: NEW_YORK }]));
		expect(call).toMatchObject({ to: NEW_YORK, outcome: 'placed', attempt: 1 });
		expect(await posts()).toBe(1);
	});

	test('From is inclusive and Until exclusive, in local time', async () => {
		const window = { days: ['monday'], from: '09:00', until: '20:00' };
		setClock('2026-03-09T13:00:00Z'); // 09:00:00 EDT
		expect(jsonOf(await run(create(window), [{ phone: NEW_YORK }]))[0].outcome).toBe('placed');
		setClock('2026-03-10T00:00:00Z'); // 20:00:00 EDT
		const [late] = jsonOf(await run(create(window), [{ phone: NEW_YORK }]));
		expect(late).toMatchObject({ outcome: 'deferred', next_call_at: '2026-03-16T09:00:00-04:00' });
		expect(await posts()).toBe(1);
	});

	test('a number whose zone is unknown fails before anything is dialled, naming the item and the number', async () => {
		setClock('2026-03-09T14:00:00Z');
		const result = await run(create({}), [{ phone: NEW_YORK }, { phone: '+80012345678' }]);
		expect(result.error?.message).toBe(
			"Calling Hours → Time Zone (the number's own) is unknown for +80012345678: its country and area code name no time zone, so nothing was dialled [item 1]",
		);
		expect(await posts()).toBe(0);
	});

	test("…or, when chosen, gets the workflow's time zone", async () => {
		setClock('2026-03-09T14:00:00Z'); // 10:00 in New York, the engine's default zone
		const [call] = jsonOf(
			await run(create({ unknownNumber: 'workflow', days: ['monday'] }), [
				{ phone: '+80012345678' },
			]),
		);
		expect(call).toMatchObject({ to: '+80012345678', outcome: 'placed' });
	});
});

describe('a number that may be in several zones', () => {
	// libphonenumber maps +1 208 214… (its prefix 12082) to both America/Boise and America/Los_Angeles.
	const IDAHO = '+12082145678';

	test('is called only when the window is open in every one of them', async () => {
		setClock('2026-03-09T15:30:00Z'); // Monday: 09:30 in Boise, 08:30 in Los Angeles
		const [deferred] = jsonOf(await run(create({}), [{ phone: IDAHO }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			next_call_at: '2026-03-09T10:00:00-06:00', // 09:00 in Los Angeles
		});
		expect(deferred.reason).toContain('in America/Boise and America/Los_Angeles');
		setClock('2026-03-09T16:00:00Z');
		expect(jsonOf(await run(create({}), [{ phone: IDAHO }]))[0].outcome).toBe('placed');
		expect(await posts()).toBe(1);
	});

	test('a toll-free number spans zones 20 hours apart: no window fits, so it fails before anything is dialled', async () => {
		setClock('2026-03-09T16:00:00Z');
		const result = await run(create({}), [{ phone: NEW_YORK }, { phone: '+18005550123' }]);
		expect(result.error?.message).toMatch(
			/^Calling Hours never open within a week in every time zone of \+18005550123 \(America\/Adak, .*\), so nothing was dialled \[item 1\]$/,
		);
		expect(await posts()).toBe(0);
	});
});

describe('a number not tied to a place is anywhere in its country', () => {
	// libphonenumber's prefix map gives each of these ranges one zone; its number metadata says they are
	// mobiles, which may be anywhere their country is (Australia, Russia, Indonesia span several zones).
	const AUSTRALIAN_MOBILE = '+61412345678';
	const RUSSIAN_FAR_EAST_MOBILE = '+79141234567';
	const INDONESIAN_MOBILE = '+6281234567890';
	const PERTH_FIXED_LINE = '+61851101234';
	const defaultWindow = 'Monday, Tuesday, Wednesday, Thursday, Friday 09:00–20:00';

	test('an Australian mobile is not dialled at 06:30 in Perth (09:30 in Sydney): deferred to when every Australian zone is open', async () => {
		setClock('2026-11-23T22:30:00Z'); // Tuesday 09:30 in Sydney, 06:30 in Perth, 05:30 on Christmas Island
		const [deferred] = jsonOf(await run(create({}), [{ phone: AUSTRALIAN_MOBILE }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			next_call_at: '2026-11-24T13:30:00+11:00', // 09:00 on the Cocos Islands (UTC+06:30)
		});
		expect(deferred.reason).toContain(
			`(${defaultWindow} in Australia/Sydney and Australia/Adelaide and Australia/Brisbane and Australia/Eucla and Australia/Lord_Howe and Australia/Perth and Indian/Christmas and Indian/Cocos)`,
		);
		expect(await posts()).toBe(0);
	});

	test('a Russian Far East mobile is not dialled at 02:30 in Vladivostok (19:30 in Moscow)', async () => {
		setClock('2026-11-23T16:30:00Z');
		const [deferred] = jsonOf(await run(create({}), [{ phone: RUSSIAN_FAR_EAST_MOBILE }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			// 09:00 in Bucharest, the map's westernmost +7 zone; Kamchatka closes at 08:00 UTC
			next_call_at: '2026-11-24T10:00:00+03:00',
		});
		expect(deferred.reason).toContain('Asia/Vladivostok');
		expect(await posts()).toBe(0);
	});

	test('an Indonesian mobile is not dialled at 21:30 in Jayapura (19:30 in Jakarta)', async () => {
		setClock('2026-11-23T12:30:00Z');
		const [deferred] = jsonOf(await run(create({}), [{ phone: INDONESIAN_MOBILE }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			next_call_at: '2026-11-24T09:00:00+07:00', // 11:00 in Jayapura
		});
		expect(deferred.reason).toContain('in Asia/Jakarta and Asia/Jayapura and Asia/Makassar)');
		expect(await posts()).toBe(0);
	});

	test('a fixed line in Perth still uses Perth: called at 19:30 there, while the Australian mobile waits', async () => {
		setClock('2026-11-23T11:30:00Z'); // Monday 19:30 in Perth, 22:30 in Sydney
		const result = jsonOf(
			await run(create({}), [{ phone: PERTH_FIXED_LINE }, { phone: AUSTRALIAN_MOBILE }]),
		);
		expect(result.map((item) => [item.outcome, item.next_call_at])).toEqual([
			['placed', undefined],
			['deferred', '2026-11-24T13:30:00+11:00'],
		]);
		expect(await posts()).toBe(1);
	});

	test("the item's given zone wins: the Australian mobile given Australia/Sydney is called at 09:30 there", async () => {
		setClock('2026-11-23T22:30:00Z');
		const [call] = jsonOf(
			await run(create({ timeZone: 'given', zone: '={{ $json.timezone }}' }), [
				{ phone: AUSTRALIAN_MOBILE, timezone: 'Australia/Sydney' },
			]),
		);
		expect(call).toMatchObject({ to: AUSTRALIAN_MOBILE, outcome: 'placed' });
		expect(await posts()).toBe(1);
	});

	test("a North American mobile keeps its area code's zone (mobiles and fixed lines share area codes there)", async () => {
		setClock('2026-11-23T15:00:00Z'); // Monday 10:00 in New York, 07:00 in Los Angeles
		const [call] = jsonOf(await run(create({}), [{ phone: '+12125550199' }]));
		expect(call).toMatchObject({ outcome: 'placed' });
		expect(await posts()).toBe(1);
	});
});

describe('a given time zone, per item', () => {
	test('each lead is judged in its own zone: Tokyo is asleep, London is at work', async () => {
		setClock('2026-03-09T14:00:00Z'); // Monday: 23:00 in Tokyo, 14:00 in London
		const leads = [
			{ phone: '+14155550101', timezone: 'Asia/Tokyo' },
			{ phone: '+14155550102', timezone: 'Europe/London' },
		];
		const result = jsonOf(
			await run(create({ timeZone: 'given', zone: '={{ $json.timezone }}' }), leads),
		);
		expect(result.map((item) => [item.outcome, item.next_call_at])).toEqual([
			['deferred', '2026-03-10T09:00:00+09:00'],
			['placed', undefined],
		]);
		expect(await posts()).toBe(1);
	});

	test('an overnight window belongs to the day it opens', async () => {
		const overnight = {
			timeZone: 'given',
			zone: 'UTC',
			days: ['saturday'],
			from: '22:00',
			until: '06:00',
		};
		setClock('2026-03-08T05:59:00Z'); // Sunday 05:59: Saturday's window is still open
		expect(jsonOf(await run(create(overnight), [{ phone: NEW_YORK }]))[0].outcome).toBe('placed');
		setClock('2026-03-08T06:00:00Z');
		const [deferred] = jsonOf(await run(create(overnight), [{ phone: '+14155550103' }]));
		expect(deferred.next_call_at).toBe('2026-03-14T22:00:00+00:00');
	});

	test('a zone that is not a time zone fails the item before anything is dialled', async () => {
		const result = await run(create({ timeZone: 'given', zone: 'Mars/Olympus' }), [
			{ phone: NEW_YORK },
		]);
		expect(result.error?.message).toBe(
			'Calling Hours → Time Zone Name is not a known IANA time zone ("Mars/Olympus") [item 0]',
		);
		expect(await posts()).toBe(0);
	});
});

describe('a window that closes while an item waits for its turn', () => {
	const utcMorning = {
		timeZone: 'given',
		zone: 'UTC',
		days: ['monday'],
		from: '09:00',
		until: '10:00',
	};

	test('…for a pace slot: the item is deferred, never dialled late', async () => {
		setClock('2026-03-09T09:59:30Z');
		const running = run(create(utcMorning, { maxCallsPerMinute: 1 }), [
			{ phone: '+14155550101' },
			{ phone: '+14155550102' },
		]);
		await waitFor('the first call', async () => ((await posts()) === 1 ? true : undefined));
		jumpClock(62_000); // the pace slot frees at 10:00:31, after the window closed
		const result = jsonOf(await running);
		expect(result.map((item) => item.outcome)).toEqual(['placed', 'deferred']);
		expect(result[1].next_call_at).toBe('2026-03-16T09:00:00+00:00');
		expect(await posts()).toBe(1);
	});

	test('…for a Calls at Once slot: the same', async () => {
		setClock('2026-03-09T09:59:50Z');
		const running = run(create(utcMorning, { waitForEnd: true, firstCheckSeconds: 1 }), [
			{ phone: '+14155550101' },
			{ phone: '+14155550102' },
		]);
		await waitFor('the first call', async () => ((await posts()) === 1 ? true : undefined));
		jumpClock(30_000); // the first call ends after 10:00
		const result = jsonOf(await running);
		expect(result.map((item) => item.outcome)).toEqual(['ended', 'deferred']);
		expect(await posts()).toBe(1);
	});
});

describe('older node versions', () => {
	test('version 1.2 has no Calling Hours: it calls, and its items carry no outcome', async () => {
		setClock('2026-03-08T06:30:00Z');
		const [call] = jsonOf(await run(create({}), [{ phone: NEW_YORK }], 1.2));
		expect(call.outcome).toBeUndefined();
		expect(call.to).toBe(NEW_YORK);
		expect(await posts()).toBe(1);
	});
});

describe('what libphonenumber cannot place is judged in every zone of its region (issue 35)', () => {
	// libphonenumber has one pattern for Chile's fixed lines and mobiles (FIXED_LINE_OR_MOBILE), and its map gives
	// +56 9 Santiago only; a mobile may be on Easter Island, two hours behind in November.
	const CHILEAN_MOBILE = '+56960123356';
	// A Canadian UAN (libphonenumber's region CA, 310 then four digits): the map reads 310 as the Los Angeles
	// area code, but the number may ring anywhere in Canada.
	const CANADIAN_SERVICE_NUMBER = '+13105678';

	test('a Chilean +56 9 number is not dialled at 09:30 in Santiago (07:30 on Easter Island)', async () => {
		setClock('2026-11-23T12:30:00Z'); // Monday
		const hours = { days: ['monday', 'tuesday'], from: '09:00', until: '20:00' };
		const [deferred] = jsonOf(await run(create(hours), [{ phone: CHILEAN_MOBILE }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			next_call_at: '2026-11-23T11:00:00-03:00', // 09:00 on Easter Island
		});
		expect(deferred.reason).toContain('09:00–20:00 in America/Santiago and Pacific/Easter)');
		expect(await posts()).toBe(0);
	});

	test("a Canadian +1 310 service number is judged in Canada's zones, not in Los Angeles'", async () => {
		setClock('2026-11-24T02:00:00Z'); // Monday 18:00 in Los Angeles and Vancouver, 22:00 in Halifax
		const [deferred] = jsonOf(await run(create({}), [{ phone: CANADIAN_SERVICE_NUMBER }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			next_call_at: '2026-11-24T10:00:00-07:00', // Tuesday 09:00 in Vancouver, in Edmonton's offset
		});
		const zones = /in (\S+(?: and \S+)*)\)/.exec(deferred.reason)![1].split(' and ');
		expect([...zones].sort()).toEqual([
			'America/Edmonton',
			'America/Fort_Nelson',
			'America/Halifax',
			'America/Puerto_Rico',
			'America/Regina',
			'America/St_Johns',
			'America/Toronto',
			'America/Vancouver',
			'America/Winnipeg',
		]);
		expect(await posts()).toBe(0);

		setClock('2026-11-23T18:00:00Z'); // Monday 10:00 in Vancouver, 14:30 in St John's
		const [call] = jsonOf(await run(create({}), [{ phone: CANADIAN_SERVICE_NUMBER }]));
		expect(call).toMatchObject({ to: CANADIAN_SERVICE_NUMBER, outcome: 'placed' });
		expect(await posts()).toBe(1);
	});
});
