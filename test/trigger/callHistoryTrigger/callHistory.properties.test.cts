/**
 * The Call History Trigger's promises as invariants, over drawn runs against the sandbox, polled as n8n
 * polls (./poll.cts). Each run draws: a history and where the trigger starts (All History or Now), Max
 * Calls per Poll, calls placed while it runs that end by themselves or are ended with random statuses
 * (known and unknown), faults per request on GET /call and GET /calls, outages, polls skipped, n8n
 * stopping after an emit before the static data was saved (a crash), and restarts. Then the service
 * recovers, every call ends, and the trigger polls until it has caught up.
 *
 * End Statuses is drawn too (none, or some statuses), and so are 200 answers that are not what was asked
 * for (sandbox variants: `null`, an array, an HTML page, truncated JSON, missing or mistyped fields), of
 * GET /call or GET /calls, every n-th answer for a while.
 *
 * Invariants: every call that ended (with a listed status) is output at least once; exactly once when no crash lost a save; no
 * call is output before it ended, and each with the status it ended with; nothing is marked as seen
 * before it was output or kept pending; a failed poll never loses a call (the first invariant, checked
 * after every kind of failure); a poll never ends quietly with a call pending that had ended before it
 * began: it outputs something, or n8n is told why (fails visibly).
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type { OddAnswer } from '../../../sandbox/variants.js';
import { allCalls, endCall } from '../../support/api.cts';
import { ids } from '../../support/fixtures.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { usePollTriggers, type PollHarness } from './poll.cts';

const RUNS = 40;
const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const start = usePollTriggers(sandbox);

const END_STATUSES = [
	'completed',
	'failed',
	'busy',
	'no-answer',
	'voicemail',
	'canceled',
	'x_unknown',
];

type Step =
	| { kind: 'place'; count: number; selfEnding: boolean }
	| { kind: 'end'; fraction: number; status: string }
	| {
			kind: 'fault';
			route: 'GET /call' | 'GET /calls';
			rate: number;
			status: number;
			times: number;
	  }
	| { kind: 'outage'; times: number }
	| {
			kind: 'odd';
			route: 'GET /call' | 'GET /calls';
			answer: Exclude<OddAnswer, 'normal'>;
			every: number;
			times: number;
	  }
	| { kind: 'poll' }
	| { kind: 'skip' }
	| { kind: 'crash' }
	| { kind: 'restart' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('place' as const),
			count: fc.integer({ min: 1, max: 60 }),
			selfEnding: fc.boolean(),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('end' as const),
			fraction: fc.double({ min: 0.1, max: 1, noNaN: true }),
			status: fc.constantFrom(...END_STATUSES),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('fault' as const),
			route: fc.constantFrom('GET /call' as const, 'GET /calls' as const),
			rate: fc.double({ min: 0.2, max: 1, noNaN: true }),
			// Answers that are not retried (400, 403) keep runs fast; a few 500s are ridden out by retries.
			status: fc.constantFrom(400, 403, 403, 500),
			times: fc.integer({ min: 1, max: 6 }),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('outage' as const),
			times: fc.integer({ min: 1, max: 8 }),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('odd' as const),
			route: fc.constantFrom('GET /call' as const, 'GET /calls' as const),
			answer: fc.constantFrom<Exclude<OddAnswer, 'normal'>>(
				'null',
				'array',
				'html',
				'truncated',
				'missing_fields',
				'mistyped_fields',
			),
			every: fc.integer({ min: 1, max: 3 }),
			times: fc.integer({ min: 1, max: 40 }),
		}),
	},
	{ weight: 6, arbitrary: fc.constant({ kind: 'poll' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'skip' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const scenarioArbitrary = fc.record({
	history: fc.integer({ min: 0, max: 260 }),
	startFrom: fc.constantFrom('allHistory', 'now'),
	maxCallsPerPoll: fc.integer({ min: 20, max: 150 }),
	endStatuses: fc.subarray(END_STATUSES, { minLength: 1 }),
	/** End Statuses: none (every end status), or some of them. */
	filter: fc.option(fc.subarray(END_STATUSES, { minLength: 1 }), { nil: undefined }),
	steps: fc.array(stepArbitrary, { minLength: 4, maxLength: 18 }),
});

type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** What a run saw: calls created after the trigger started, and whether a crash lost a save. */
interface RunRecord {
	/** Calls the trigger must output: the history (All History) and every call placed later. */
	expected: Set<string>;
	crashed: boolean;
}

/**
 * The newest `count` calls, read by the test past the faults and odd answers in force (which stay for the
 * trigger; the odd answers count again from here).
 */
async function newestCalls(count: number): Promise<string[]> {
	const { body: faults } = await sandbox.control('GET', '/faults');
	const { body: variants } = await sandbox.control('GET', '/variants');
	await sandbox.faults({});
	await sandbox.variants({ end_statuses: variants.end_statuses });
	const newest = ids((await allCalls(sandbox)).slice(0, count));
	await sandbox.variants(variants);
	const { times_remaining: left, ...settings } = faults ?? {};
	if (Object.keys(settings).length > 0 && left !== 0)
		await sandbox.faults(left === undefined ? settings : { ...settings, times: left });
	return newest;
}

/** The trigger published, or published again: a failed activation (a fault) is tried again later. */
async function ensurePublished(trigger: PollHarness, published: boolean): Promise<boolean> {
	if (published) return true;
	try {
		await trigger.activate('init');
		return true;
	} catch {
		return false;
	}
}

/**
 * After each poll, the calls marked as taken (the position, a backfill's last calls) that were neither
 * output nor kept pending: checked at the end, when every call's end status is known.
 */
function notKept(trigger: PollHarness, record: RunRecord): string[] {
	const state = trigger.state;
	if (!state) return [];
	const emitted = new Set(trigger.emittedIds);
	const pending = new Set(state.pending);
	const marked = [...state.seen, ...(state.backfill?.last ?? [])];
	return marked.filter((id) => record.expected.has(id) && !emitted.has(id) && !pending.has(id));
}

async function runScenario(scenario: Scenario): Promise<void> {
	await sandbox.reset();
	await sandbox.variants({ end_statuses: scenario.endStatuses });
	if (scenario.history > 0) await sandbox.seed({ calls: scenario.history });
	const history = ids(await allCalls(sandbox));
	const record: RunRecord = {
		expected: new Set(scenario.startFrom === 'allHistory' ? history : []),
		crashed: false,
	};
	const live: string[] = [];
	/** Calls known to have ended: the history's that had, and those the test ended. */
	const ended = new Set(
		(await allCalls(sandbox))
			.filter((call) => call.status !== 'in_progress')
			.map((call) => call.id as string),
	);
	const quiet: string[] = [];
	const trigger = await start({
		options: {
			startFrom: scenario.startFrom,
			maxCallsPerPoll: scenario.maxCallsPerPoll,
			...(scenario.filter ? { endStatuses: scenario.filter.join(', ') } : {}),
		},
	});
	const dropped = new Set<string>();
	await trigger.activate();
	let published = true;
	let beforeLastPoll: IDataObject = trigger.savedNodeData;
	let lastPollEmitted = false;

	for (const step of scenario.steps) {
		switch (step.kind) {
			case 'place': {
				const duration = step.selfEnding ? 1 : 3_600_000;
				await sandbox.seed({ live_calls: step.count, call_duration_ms: duration });
				const newest = await newestCalls(step.count);
				for (const id of newest) record.expected.add(id);
				if (!step.selfEnding) live.push(...newest);
				break;
			}
			case 'end': {
				const count = Math.ceil(live.length * step.fraction);
				for (const id of live.splice(0, count)) {
					await endCall(sandbox, id, step.status);
					ended.add(id);
				}
				break;
			}
			case 'odd':
				// Replaces the odd answers in force (the end statuses stay).
				await sandbox.variants({
					end_statuses: scenario.endStatuses,
					[step.route === 'GET /call' ? 'call_answer' : 'calls_answer']: step.answer,
					odd_answers_every: step.every,
					odd_answers_times: step.times,
				});
				break;
			case 'fault':
				await sandbox.faults({
					match: step.route,
					error_rate: step.rate,
					status: step.status,
					times: step.times,
				});
				break;
			case 'outage':
				await sandbox.faults({ error_rate: 1, status: 403, times: step.times });
				break;
			case 'skip':
				break;
			case 'poll':
			case 'restart': {
				const before = published ? trigger.savedNodeData : beforeLastPoll;
				const executions = trigger.executions.length;
				const errors = trigger.pollErrors.length;
				const wasPublished = published;
				const endedBefore = new Set(ended);
				if (step.kind === 'restart' && published) {
					try {
						await trigger.restart();
					} catch {
						published = false;
					}
				} else if (published) await trigger.poll();
				else published = await ensurePublished(trigger, published);
				beforeLastPoll = before;
				lastPollEmitted = trigger.executions.length > executions;
				if (published) for (const id of notKept(trigger, record)) dropped.add(id);
				// A poll that output nothing and reported nothing left no call pending that had ended.
				const silent =
					wasPublished &&
					published &&
					step.kind === 'poll' &&
					!lastPollEmitted &&
					trigger.pollErrors.length === errors;
				if (silent)
					quiet.push(...(trigger.state?.pending ?? []).filter((id) => endedBefore.has(id)));
				break;
			}
			case 'crash':
				// n8n stops right after the last poll's emit, before its static data was saved.
				if (!lastPollEmitted) break;
				record.crashed = true;
				try {
					await trigger.crashAndRestart(beforeLastPoll);
					published = true;
				} catch {
					published = false;
				}
				lastPollEmitted = false;
				break;
		}
	}

	// The service recovers and every call ends; the trigger polls until it has caught up.
	await sandbox.faults({});
	await sandbox.variants({ end_statuses: scenario.endStatuses });
	for (const id of live.splice(0)) await endCall(sandbox, id, 'completed');
	await new Promise((resolve) => setTimeout(resolve, 20));
	published = await ensurePublished(trigger, published);
	expect(published).toBe(true);
	const drainPolls = Math.ceil((record.expected.size + 400) / scenario.maxCallsPerPoll) + 3;
	for (let poll = 0; poll < drainPolls; poll++) {
		await trigger.poll();
		for (const id of notKept(trigger, record)) dropped.add(id);
	}

	const emitted = trigger.emittedIds;
	const final = new Map((await allCalls(sandbox)).map((call) => [call.id, call]));
	const wanted = (id: string) => !scenario.filter || scenario.filter.includes(final.get(id).status);
	// Every call that ended (with a status End Statuses lists) is output at least once, and nothing else.
	const expected = [...record.expected].filter(wanted);
	expect([...new Set(emitted)].sort()).toEqual(expected.sort());
	// Nothing was marked as taken before it was output or kept, except calls End Statuses leaves out.
	expect([...dropped].filter(wanted)).toEqual([]);
	// No poll kept an ended call back without telling n8n.
	expect(quiet).toEqual([]);
	// Exactly once when every emit was saved.
	if (!record.crashed) expect(emitted).toHaveLength(new Set(emitted).size);
	// Never before it ended: with the status it ended with, as the service gave it.
	for (const item of trigger.emitted) {
		const call = final.get(item.id as string);
		expect(item.status).toBe(call.status);
		expect(item.status).not.toBe('in_progress');
		expect(item.dedupe_key).toBe(`${String(item.id)}:call_ended`);
	}
	expect(trigger.state?.pending).toEqual([]);
}

describe('Call History Trigger: every ended call, at least once; exactly once without crashes', () => {
	test(
		'drawn histories, calls, end statuses, faults, outages, skipped polls, crashes and restarts',
		async () => {
			await fc.assert(fc.asyncProperty(scenarioArbitrary, runScenario), propertyParameters(RUNS));
		},
		propertyTimeout(RUNS, 4_000),
	);
});

describe('counterexamples the property found', () => {
	test('a backfill cursor refused while 54 calls in progress wait above it, 20 calls per poll: none output twice', async () => {
		await runScenario({
			history: 90,
			startFrom: 'allHistory',
			maxCallsPerPoll: 20,
			endStatuses: ['x_unknown'],
			filter: undefined,
			steps: [
				{ kind: 'place', count: 54, selfEnding: false },
				{ kind: 'fault', route: 'GET /calls', rate: 0.2555617417674512, status: 400, times: 2 },
				{ kind: 'poll' },
				{ kind: 'skip' },
				{ kind: 'poll' },
				{ kind: 'skip' },
			],
		});
	}, 60_000);
});
