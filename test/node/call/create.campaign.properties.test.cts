/**
 * Call → Create's Calling Hours and Call Again (node version 1.3) as invariants over drawn campaigns.
 * Each run draws the leads (numbers that are reached or fail, each in its own time zone), the window
 * (days, hours, overnight), the clock (often seconds before a window closes), Call Again's settings,
 * what the service answers (5xx before and after acting, resets, 429, 4xx) and what n8n does (Retry On
 * Fail, On Error → Continue, *Retry execution*), and plays several scheduled passes over a lead store,
 * as the example workflow does: the due leads go in, each outcome is written back, and some writes are
 * lost (n8n stopped between the call and the write). It also draws each lead's Context (empty or its own),
 * From's picker mode for each execution (a *Retry execution* may use another one), a lead that fails first
 * so that n8n runs the node again (On Error → Continue with Retry On Fail), leads that come in at a later
 * attempt, another workflow's call to a lead's number (no Context) before a pass, and a workflow stopped
 * while a POST /call answered 429 waits for its Retry-After. fast-check's scheduler orders requests and answers.
 * After every campaign:
 *
 * - no call was started while its lead's window was closed in any zone the lead may be in (by the service's
 *   clock, checked here with Intl): the zone given per item, or, for the number's own, every zone of its
 *   country when the number is not tied to a place (a mobile in Australia, Russia or Indonesia; toll-free and
 *   shared-cost numbers) and its area code's zone otherwise (North American, Brazilian and Mexican mobiles);
 * - no attempt was placed twice: a lead has at most one call per attempt it was fed, and at most Attempts;
 * - every lead fed to a pass has exactly one output, paired with it, with an outcome; an outcome with a
 *   call is the lead's own call, never another workflow's;
 * - a deferred lead was not dialled, and its next_call_at lies inside its window in each of those zones, after
 *   the pass;
 * - retry_due comes only with attempts left, and names the next attempt;
 * - a lead with attempts left is never closed: an ended failure has no attempt left, and `skipped` comes
 *   only for an attempt fed again after its outcome was lost, when no Context can tell its own call (attempt
 *   1, guarded by the skip window, or an empty Context) or after another workflow called the number, never
 *   after a re-run of n8n;
 * - no lead is "may have been placed" unless a POST /call for it got something other than a 4xx (a 429
 *   followed by a stop placed nothing).
 */
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import { allCalls, createAgent, getCall, placeCall } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { NODE_NAME, runNode, type NodeRun } from '../../support/node.cts';
import { postCallFault } from '../../support/postFaults.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSchedulingProxy } from '../../support/proxy.cts';
import { useSandbox, type RecordedRequest } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 300 });
const proxy = useSchedulingProxy(sandbox);
afterEach(restoreClock);

/** The zones libphonenumber's map (as vendored) gives a calling code: where a number not tied to a place may be. */
const countryZones = (callingCode: string) =>
	(
		new RegExp(`^${callingCode}\\|(.+)$`, 'm').exec(
			fs.readFileSync(
				path.join(__dirname, '../../../scripts/data/libphonenumber/timezones-map_data.txt'),
				'utf8',
			),
		) as RegExpExecArray
	)[1].split('&');

/**
 * The leads' numbers, each with every zone it may be in when Calling Hours takes the number's own. The
 * sandbox fails the calls to a number ending in 0000: one in four here.
 */
const NUMBERS: Record<string, string[]> = {
	'+14155550000': ['America/Los_Angeles'],
	'+14155550101': ['America/Los_Angeles'],
	'+14155550102': ['America/Los_Angeles'],
	'+14165550123': ['America/Toronto'], // Canada: mobiles and fixed lines share area codes
	'+61412340000': countryZones('61'), // Australian mobile
	'+611300123456': countryZones('61'), // Australian shared-cost (13 00)
	'+79141230000': countryZones('7'), // Russian mobile (a Far East range)
	'+78001234567': countryZones('7'), // Russian toll-free
	'+6281234560000': countryZones('62'), // Indonesian mobile
	'+558001234567': countryZones('55'), // Brazilian toll-free
	'+5511987654321': ['America/Sao_Paulo'], // Brazilian mobile: placed by its area code (11)
	'+525512345678': ['America/Mexico_City'], // Mexican mobile: placed by its area code (55)
};
const PHONES = Object.keys(NUMBERS);
const ZONES = ['UTC', 'Asia/Tokyo', 'America/New_York', 'Asia/Kolkata'];
/** A lead whose zone is this takes the number's own (Time Zone: The Number's Own). */
const OWN_ZONE = 'number';
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const OUTCOMES = ['placed', 'ended', 'retry_due', 'deferred', 'skipped', 'failed'];
const PICKERS = ['list', 'id', 'name', 'phoneNumber'] as const;
type Picker = (typeof PICKERS)[number];
/** A lead whose zone is no zone: refused before anything is dialled, so n8n runs the node again. */
const BLOCKER = { phone: '+14155550199', zone: 'Mars/Olympus', context: '' };

const clock = (minutes: number) =>
	`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Whether `ms` is inside the window in `zone`: written here apart from the node's own arithmetic. */
function insideWindow(window: Window, zone: string, ms: number): boolean {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone: zone,
		weekday: 'long',
		hour: 'numeric',
		minute: 'numeric',
		hourCycle: 'h23',
	}).formatToParts(ms);
	const part = (type: string) => parts.find((entry) => entry.type === type)?.value ?? '';
	const day = DAYS.indexOf(part('weekday').toLowerCase());
	const minute = Number(part('hour')) * 60 + Number(part('minute'));
	const opensOn = (offset: number) => window.days.includes(DAYS[(day + 7 - offset) % 7]);
	if (window.from < window.until)
		return opensOn(0) && minute >= window.from && minute < window.until;
	return (opensOn(0) && minute >= window.from) || (opensOn(1) && minute < window.until);
}

/** Whether `ms` is inside the window in every zone the lead may be in. */
const insideForLead = (window: Window, lead: { phone: string; zone: string }, ms: number) =>
	(lead.zone === OWN_ZONE ? NUMBERS[lead.phone] : [lead.zone]).every((zone) =>
		insideWindow(window, zone, ms),
	);

/** The instant at which the wall clock in `zone` reads `wallClock` (its fields read as UTC). */
function instantOf(wallClock: number, zone: string): number {
	const offset = (ms: number) => {
		const parts = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			hourCycle: 'h23',
		}).formatToParts(ms);
		const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value);
		const local = Date.UTC(
			part('year'),
			part('month') - 1,
			part('day'),
			part('hour'),
			part('minute'),
		);
		return local - Math.floor(ms / 60_000) * 60_000;
	};
	const guess = wallClock - offset(wallClock);
	return wallClock - offset(guess);
}

interface Window {
	days: string[];
	from: number;
	until: number;
}

// Mostly windows open on the campaign's first days (Sunday 8 and Monday 9 March), so leads get called.
const windowArb: fc.Arbitrary<Window> = fc
	.record({
		days: fc.oneof(
			{
				weight: 3,
				arbitrary: fc.subarray(DAYS).map((days) => [...new Set(['sunday', 'monday', ...days])]),
			},
			{ weight: 1, arbitrary: fc.subarray(DAYS, { minLength: 1 }) },
		),
		from: fc.integer({ min: 0, max: 23 }).map((hour) => hour * 60),
		length: fc.integer({ min: 1, max: 14 }).map((hours) => hours * 60),
	})
	.map(({ days, from, length }) => ({ days, from, until: (from + length) % (24 * 60) || 24 * 60 }));

const postFault = postCallFault(['500 before', '500 after', 'reset after', '400', '429']);

const campaign = fc.record({
	zone: fc.constantFrom(...ZONES),
	leads: fc.uniqueArray(
		fc.record({
			phone: fc.constantFrom(...PHONES),
			zone: fc.oneof(
				{ weight: 3, arbitrary: fc.constant('') },
				{ weight: 1, arbitrary: fc.constantFrom(...ZONES) },
				{ weight: 2, arbitrary: fc.constant(OWN_ZONE) },
			),
			ownContext: fc.boolean(),
		}),
		{
			minLength: 1,
			maxLength: 3,
			selector: (lead) => lead.phone,
		},
	),
	window: windowArb,
	// The clock starts this many seconds before the window opens or closes in the campaign's zone, on
	// 8 March 2026 (New York's clocks go forward) or the day after; mostly just before the window closes.
	start: fc.record({
		day: fc.constantFrom(8, 9),
		edge: fc.constantFrom('from', 'until'),
		secondsBefore: fc.oneof(
			fc.integer({ min: -20, max: 4 }),
			fc.integer({ min: 5, max: 3_600 }),
			fc.integer({ min: -3_600, max: -21 }),
		),
	}),
	attempts: fc.integer({ min: 1, max: 3 }),
	// Leads may come in at a later attempt, their previous attempt's call placed before the campaign.
	firstAttempt: fc.integer({ min: 1, max: 3 }),
	minutesBetween: fc.constantFrom(0, 30),
	passes: fc.array(
		fc.record({
			jumpMinutes: fc.constantFrom(0, 31, 600, 1_440),
			lostWrites: fc.boolean(),
			picker: fc.constantFrom(...PICKERS),
			// Before the pass, the agent calls the first due lead's number without a Context (another workflow).
			foreignCall: fc.boolean(),
		}),
		{ minLength: 2, maxLength: 3 },
	),
	postFault,
	// With a 429 drawn: the workflow is stopped while the node waits out its Retry-After.
	stopAfter429: fc.boolean(),
	tries: fc.integer({ min: 1, max: 2 }),
	continueOnFail: fc.boolean(),
	// With On Error → Continue: a first lead that fails, so Retry On Fail runs the node again.
	blocker: fc.oneof(
		{ weight: 3, arbitrary: fc.constant(true) },
		{ weight: 1, arbitrary: fc.constant(false) },
	),
	retryExecution: fc.boolean(),
	retryPicker: fc.constantFrom(...PICKERS),
	scheduler: fc.scheduler(),
});
type Campaign = typeof campaign extends fc.Arbitrary<infer T> ? T : never;

/** A row of the lead store, as the example keeps it. */
interface Lead extends IDataObject {
	phone: string;
	zone: string;
	context: string;
	attempt: number;
	call_id: string;
	outcome: string;
	next_call_at: string;
}

const isDue = (lead: Lead, now: number) =>
	['', 'deferred', 'retry_due'].includes(lead.outcome) &&
	(lead.next_call_at === '' || Date.parse(lead.next_call_at) <= now);

let agent: any;
const fromPicker = (mode: Picker) =>
	rl(mode === 'name' ? agent.name : mode === 'phoneNumber' ? agent.phone_number : agent.id, mode);

interface PassRun {
	execution: string;
	picker: Picker;
	/** A blocker leads the input: Retry On Fail is on, so n8n runs the node again. */
	blocked?: boolean;
	retryOf?: NodeRun;
	cancelWhen?: Promise<unknown>;
}

function runPass(scenario: Campaign, input: Lead[], pass: PassRun) {
	const { window } = scenario;
	return runNode({
		parameters: {
			resource: 'call',
			operation: 'create',
			from: fromPicker(pass.picker),
			to: '={{ $json.phone }}',
			context: '={{ $json.context }}',
			skipCalledWithinMinutes: 10_080,
			options: {
				waitForEnd: true,
				firstCheckSeconds: 1,
				callsAtOnce: 2,
				callingHours: {
					hours: {
						...window,
						from: clock(window.from),
						until: clock(window.until),
						timeZone: `={{ $json.zone === '${OWN_ZONE}' ? 'number' : 'given' }}`,
						zone: '={{ $json.zone }}',
					},
				},
				...(scenario.attempts > 1
					? {
							callAgain: {
								settings: { attempts: scenario.attempts, minutesBetween: scenario.minutesBetween },
							},
						}
					: {}),
			},
		},
		credentials: { apiKey: sandbox.apiKey, baseUrl: `${proxy.origin}/v1` },
		typeVersion: 1.3,
		input,
		continueOnFail: scenario.continueOnFail,
		settings:
			scenario.tries > 1 || pass.blocked
				? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }
				: undefined,
		executionId: pass.execution,
		...(pass.retryOf ? { retryOf: pass.retryOf.run } : {}),
		cancelWhen: pass.cancelWhen,
	});
}

const refusedPost = (request: RecordedRequest) =>
	request.method === 'POST' && request.path === '/v1/call' && request.status === 429;

/**
 * n8n's Stop, 1.5 s after the sandbox answered a POST /call 429 (its Retry-After is 4 s, so the node is
 * waiting it out by then); never while `running.done` is false and no 429 came.
 */
async function stopAfterRefusal(running: { done: boolean }): Promise<void> {
	while (!running.done) {
		if ((await sandbox.requests()).some(refusedPost)) return await sleep(1_500);
		await sleep(20);
	}
	await new Promise(() => undefined);
}

/** The numbers a run says may have been placed (a failed item, or the node's error). */
function saidMaybePlaced(result: NodeRun, input: Lead[]): string[] {
	const numbers = result.items.flatMap(({ json, pairedItem }) =>
		json.failure === 'may_have_been_placed'
			? [input[(pairedItem as { item: number }).item].phone]
			: [],
	);
	const named = /The call to (\+\d+) may (not )?have been placed/.exec(result.error?.message ?? '');
	return named ? [...numbers, named[1]] : numbers;
}

describe('a campaign over scheduled passes, whatever the service answers and however n8n runs it', () => {
	test(
		'no call outside its window, no attempt twice, one outcome per lead',
		async () => {
			let executions = 0;
			await fc.assert(
				fc.asyncProperty(campaign, async (scenario) => {
					await sandbox.reset();
					agent = await createAgent(sandbox, { name: 'Front Desk' });
					const { day, edge, secondsBefore } = scenario.start;
					const edgeMinutes = edge === 'from' ? scenario.window.from : scenario.window.until;
					const wallClock = Date.UTC(2026, 2, day) + edgeMinutes * 60_000;
					setClock(
						new Date(instantOf(wallClock, scenario.zone) - secondsBefore * 1000).toISOString(),
					);
					const attempt = Math.min(scenario.firstAttempt, scenario.attempts);
					const store: Lead[] = scenario.leads.map(({ ownContext, ...lead }) => ({
						...lead,
						zone: lead.zone || scenario.zone,
						context: ownContext ? `Renewal call for ${lead.phone}` : '',
						attempt,
						call_id: '',
						outcome: '',
						next_call_at: '',
					}));
					// The previous attempt's call of a lead that comes in at a later attempt, and calls of
					// another workflow: not the node's.
					const previous = new Set<string>();
					const calledByOthers = new Set<string>();
					const placedByOthers = async (lead: Lead, context: string) => {
						const call = await placeCall(sandbox, agent, { to: lead.phone, context });
						previous.add(call.id);
						while ((await getCall(sandbox, call.id)).status === 'in_progress') await sleep(50);
						return call.id;
					};
					for (const lead of attempt > 1 ? store : [])
						lead.call_id = await placedByOthers(lead, lead.context);
					const fed = new Map<string, Set<number>>(store.map((lead) => [lead.phone, new Set()]));
					// The attempts of each lead fed to a pass whose outcome never reached the store.
					const lost = new Map<string, Set<number>>(store.map((lead) => [lead.phone, new Set()]));
					const blocked = scenario.continueOnFail && scenario.blocker;
					const stops = scenario.postFault?.status === 429 && scenario.stopAfter429;
					// Every POST /call of the campaign: a pass may meet an earlier pass's call whose outcome
					// is not known in the process's gate, and say that it may have been placed.
					const posts: { body: unknown; status: number | null }[] = [];

					for (const pass of scenario.passes) {
						const now = Date.now();
						const due = store.filter((lead) => isDue(lead, now));
						if (due.length > 0) {
							if (pass.foreignCall) {
								await placedByOthers(due[0], '');
								calledByOthers.add(due[0].phone);
							}
							const leads = due.map((lead) => ({ ...lead }));
							const input = blocked ? [{ ...leads[0], ...BLOCKER }, ...leads] : leads;
							const lostBefore = new Map([...lost].map(([phone, set]) => [phone, new Set(set)]));
							for (const lead of leads) fed.get(lead.phone)?.add(lead.attempt);
							const before = (await allCalls(sandbox)).map((call) => call.id);
							await sandbox.clearRequests();
							if (scenario.postFault)
								await sandbox.faults(
									stops ? { ...scenario.postFault, retry_after_s: 4 } : scenario.postFault,
								);
							proxy.use(scenario.scheduler);
							const running = { done: false };
							const execution = `${++executions}`;
							let result = await scenario.scheduler.waitFor(
								runPass(scenario, input, {
									execution,
									picker: pass.picker,
									blocked,
									cancelWhen: stops ? stopAfterRefusal(running) : undefined,
								}),
							);
							running.done = true;
							const maybes = saidMaybePlaced(result, input);
							const retriesStopped = Boolean(result.error) && stops;
							if (result.error && scenario.retryExecution) {
								await sandbox.faults({});
								result = await scenario.scheduler.waitFor(
									runPass(scenario, input, {
										execution: `${execution}-retry`,
										picker: scenario.retryPicker,
										blocked,
										retryOf: result,
									}),
								);
								maybes.push(...saidMaybePlaced(result, input));
							}
							proxy.use(undefined);
							await sandbox.faults({});
							posts.push(
								...(await sandbox.requests()).filter(
									(request) => request.method === 'POST' && request.path === '/v1/call',
								),
							);
							for (const phone of maybes) {
								// Only a request the service may have acted on can have placed a call.
								const mayHaveActed = posts.some(
									(request) =>
										(request.body as { to?: string } | null)?.to === phone &&
										(request.status === null || request.status < 400 || request.status >= 500),
								);
								expect({ phone, mayHaveActed }).toEqual({ phone, mayHaveActed: true });
							}
							const newCalls = (await allCalls(sandbox)).filter(
								(call) => !before.includes(call.id),
							);
							// In n8n-core's engine a Retry execution of a stopped execution runs nothing (the
							// stopped node had left the execution's stack) and succeeds without output: as with
							// an error, the pass's outcomes never reach the store.
							const nodeRan = (result.run.data.resultData.runData[NODE_NAME]?.length ?? 0) > 0;
							if (!nodeRan)
								expect({ nodeRan, retriesStopped, retried: scenario.retryExecution }).toEqual({
									nodeRan,
									retriesStopped: true,
									retried: true,
								});
							if (result.error || pass.lostWrites || !nodeRan)
								for (const lead of leads) lost.get(lead.phone)?.add(lead.attempt);
							if (!result.error && nodeRan) {
								expect(result.items.map((item) => item.pairedItem)).toEqual(
									input.map((_, item) => ({ item })),
								);
								result.items.forEach(({ json }, index) => {
									const lead = input[index];
									expect(OUTCOMES).toContain(json.outcome);
									if (blocked && index === 0) return;
									if (json.outcome === 'deferred') {
										expect(newCalls.filter((call) => call.client_number === lead.phone)).toEqual(
											[],
										);
										const next = Date.parse(String(json.next_call_at));
										expect(next).toBeGreaterThan(now);
										expect(insideForLead(scenario.window, lead, next)).toBe(true);
									}
									if (json.outcome === 'retry_due') {
										expect(json.attempt).toBe(lead.attempt + 1);
										expect(json.attempt).toBeLessThanOrEqual(scenario.attempts);
									}
									// A lead with attempts left is never closed.
									if (json.outcome === 'ended' && json.status !== 'completed')
										expect(json.attempt).toBe(scenario.attempts);
									// An outcome is the end of the lead's own call, never another workflow's.
									if (['placed', 'ended', 'retry_due'].includes(String(json.outcome)))
										expect({ call: json.id, others: previous.has(String(json.id)) }).toEqual({
											call: json.id,
											others: false,
										});
									if (json.outcome === 'skipped' && !calledByOthers.has(lead.phone)) {
										const lostAttempt = lostBefore.get(lead.phone)?.has(lead.attempt) === true;
										const noOwnCall = lead.attempt === 1 || lead.context === '';
										expect({
											lead: lead.phone,
											attempt: lead.attempt,
											lostAttempt,
											noOwnCall,
										}).toEqual({
											lead: lead.phone,
											attempt: lead.attempt,
											lostAttempt: true,
											noOwnCall: true,
										});
									}
									if (pass.lostWrites) return;
									const row = store.find((entry) => entry.phone === lead.phone) as Lead;
									Object.assign(row, {
										outcome: String(json.outcome),
										attempt: Number(json.attempt),
										call_id: typeof json.id === 'string' ? json.id : row.call_id,
										next_call_at: typeof json.next_call_at === 'string' ? json.next_call_at : '',
									});
								});
							}
						}
						jumpClock(pass.jumpMinutes * 60_000);
					}

					const calls = (await allCalls(sandbox)).filter((call) => !previous.has(call.id));
					for (const call of calls) {
						const lead = store.find((entry) => entry.phone === call.client_number) as Lead;
						expect({
							call: call.id,
							inside: insideForLead(scenario.window, lead, Date.parse(call.created_at)),
						}).toEqual({ call: call.id, inside: true });
					}
					for (const lead of store) {
						const count = calls.filter((call) => call.client_number === lead.phone).length;
						expect({ lead: lead.phone, count }).toEqual({
							lead: lead.phone,
							count: Math.min(count, fed.get(lead.phone)?.size ?? 0, scenario.attempts),
						});
					}
					restoreClock();
				}),
				propertyParameters(8),
			);
		},
		propertyTimeout(8, 10_000),
	);
});

describe('counterexamples, kept as regressions', () => {
	// Seed 20261125 found it: with the clock set to March, the sandbox's Date header still read the real
	// clock, so a call placed "a moment ago" looked 8 months old and a re-fed lead was dialled again.
	// The service's Date header and its created_at come from one clock; the sandbox now writes both so.
	test('a lead fed again after a failed pass is skipped, not dialled twice, with the clock set', async () => {
		await sandbox.reset();
		agent = await createAgent(sandbox, { name: 'Front Desk' });
		setClock('2026-03-08T00:00:00Z');
		const scenario = {
			window: { days: ['sunday', 'saturday'], from: 0, until: 60 },
			attempts: 1,
			continueOnFail: false,
			tries: 1,
		} as unknown as Campaign;
		const input: Lead[] = ['+14155550000', '+14155550102'].map((phone) => ({
			phone,
			zone: 'UTC',
			context: '',
			attempt: 1,
			call_id: '',
			outcome: '',
			next_call_at: '',
		}));
		await sandbox.faults({
			match: 'POST /call',
			times: 1,
			when: 'before',
			error_rate: 1,
			status: 500,
		});
		const first = await runPass(scenario, input, { execution: 'regression-1', picker: 'name' });
		expect(first.error?.message).toMatch(/may not have been placed/);
		// The next pass a minute later (a campaign's passes are minutes apart). A 500 may come after the
		// service placed the call (the live service's "Failed to create call record"), and with no trace in
		// the list the process's gate keeps the number until the longest call is over (issue 41 row 2): the
		// refused lead fails as "may have been placed", dialling nothing.
		jumpClock(61_000);
		const second = await runPass(scenario, input, { execution: 'regression-2', picker: 'name' });
		expect(second.error?.message).toMatch(
			/^The call to \+14155550102 may have been placed by execution regression-1/,
		);
		// The lead placed before is not dialled again; the one refused before not at all: nobody twice.
		const calls = await allCalls(sandbox);
		const placed = (phone: string) => calls.filter((call) => call.client_number === phone).length;
		expect([placed('+14155550000'), placed('+14155550102')]).toEqual([1, 0]);
	});
});
