/**
 * Call → Create's jobs on both of the sandbox's profiles: the documented service (a call has a status and
 * its number at once) and the live one (numeric IDs, no status, a call that rings with no number before it
 * connects, a call that is never answered ringing for ever). Create with and without waiting, Call Again
 * and Calling Hours do the same job on both; what only one service does is in its own suite
 * (create.live.test.cts, and the documented suites beside this one). Run in n8n-core's real engine.
 */
import type { INodeParameters } from 'n8n-workflow';

import { callsPosted, createAgent } from '../../support/api.cts';
import { restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

/** A number whose call fails: the documented service ends it "failed", the live one never connects it. */
const FAILING = '+14155550000';

afterEach(restoreClock);

describe.each(['documented', 'live'] as const)('the %s profile', (profile) => {
	const sandbox = useSandbox({ profile, callDurationMs: 1_500, ringMs: 1_000 });
	let agent: any;
	beforeEach(async () => {
		agent = await createAgent(sandbox, { name: 'Renewals' });
		await sandbox.clearRequests();
	});

	const create = (options: INodeParameters = {}) => ({
		resource: 'call',
		operation: 'create',
		from: rl(agent.id),
		to: '={{ $json.phone }}',
		context: '=Renewal for {{ $json.name }}',
		options,
	});
	const waiting = { waitForEnd: true, maxWaitMinutes: 0.1, firstCheckSeconds: 1 };
	const run = (options: INodeParameters, input: Record<string, unknown>[]) =>
		runWith(sandbox, create(options), { input, typeVersion: 1.4 });

	test('Create without waiting: the call placed, its ID as text, its number, once', async () => {
		const [item] = jsonOf(await run({}, [{ phone: '+14155557001', name: 'Ada' }]));
		expect(item).toMatchObject({
			id: expect.stringMatching(/^\S+$/),
			agent_id: String(agent.id),
			to: '+14155557001',
			context: 'Renewal for Ada',
			outcome: 'placed',
			call_id: item.id,
		});
		expect(['in_progress', 'ringing']).toContain(item.status);
		expect(await callsPosted(sandbox)).toBe(1);
	});

	test('Create with Wait for the Call to End: the item once ended, completed, with the conversation', async () => {
		const [item] = jsonOf(await run(waiting, [{ phone: '+14155557002', name: 'Ada' }]));
		expect(item).toMatchObject({ outcome: 'ended', ended: true, status: 'completed' });
		expect(item.transcript.length).toBeGreaterThan(0);
		expect(item.transcript.every((turn: any) => turn.speaker !== 'system')).toBe(true);
		expect(await callsPosted(sandbox)).toBe(1);
	}, 30_000);

	test('Call Again: a failed call comes out retry due; the lead fed again is not dialled twice', async () => {
		const callAgain = { ...waiting, callAgain: { settings: { attempts: 3, minutesBetween: 30 } } };
		const lead = { phone: FAILING, name: 'Ada' };
		const [first] = jsonOf(await run(callAgain, [lead]));
		expect(first).toMatchObject({ outcome: 'retry_due', attempt: 2, call_id: first.id });
		const due = { ...lead, attempt: first.attempt, call_id: first.call_id };
		// Attempt 1's call must have ended (or count as never connected) for attempt 2: the live call still
		// rings, so attempt 2 is skipped until then; the documented one ended "failed", so it is placed.
		const [second] = jsonOf(await run(callAgain, [due]));
		if (profile === 'documented') {
			expect(second).toMatchObject({ outcome: 'retry_due', attempt: 3 });
			expect(await callsPosted(sandbox)).toBe(2);
		} else {
			expect(second).toMatchObject({ outcome: 'skipped', attempt: 2, id: first.id });
			expect(second.skipReason).toContain(`(call ${first.id})`);
			expect(await callsPosted(sandbox)).toBe(1);
		}
		// The same lead fed again: nothing more is dialled.
		const [again] = jsonOf(await run(callAgain, [due]));
		expect(again.skipped).toBe(true);
		expect(await callsPosted(sandbox)).toBe(profile === 'documented' ? 2 : 1);
	}, 60_000);

	test('Calling Hours: outside the window deferred without a call, inside it placed', async () => {
		const hours = { callingHours: { hours: {} } };
		setClock('2026-03-08T06:30:00Z'); // Sunday 01:30 in New York
		const [deferred] = jsonOf(await run(hours, [{ phone: '+12125557003', name: 'Ada' }]));
		expect(deferred).toMatchObject({
			outcome: 'deferred',
			next_call_at: '2026-03-09T09:00:00-04:00',
		});
		expect(await callsPosted(sandbox)).toBe(0);
		setClock('2026-03-09T14:00:00Z'); // Monday 10:00
		const [placed] = jsonOf(await run(hours, [{ phone: '+12125557003', name: 'Ada' }]));
		expect(placed).toMatchObject({ outcome: 'placed', to: '+12125557003' });
		expect(await callsPosted(sandbox)).toBe(1);
	});
});
