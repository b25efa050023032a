/**
 * Call Ended means "no longer live": a call that ended with any status but a live one is output, with its
 * status as the service gave it, including statuses the contract does not list (busy, no-answer, ...);
 * End Statuses narrows that to an open list. Every item carries a dedupe_key. Polled as n8n polls.
 */
import { allCalls, createAgent, endCall, getCall, placeCall } from '../../support/api.cts';
import { ids } from '../../support/fixtures.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { usePollTriggers } from './poll.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const start = usePollTriggers(sandbox);

describe('end statuses beyond completed and failed', () => {
	test('1,500 ended calls, some no-answer and busy, GET /call half 503 at first: every call is output once, with its status', async () => {
		await sandbox.variants({
			end_statuses: ['completed', 'completed', 'completed', 'completed', 'no-answer', 'busy'],
		});
		await sandbox.seed({ calls: 1_500 });
		const history = await allCalls(sandbox);
		const statuses = new Map(history.map((call) => [call.id, call.status]));
		expect(history.filter((call) => call.status === 'no-answer').length).toBeGreaterThan(100);
		expect(history.filter((call) => call.status === 'busy').length).toBeGreaterThan(100);
		await sandbox.faults({ error_rate: 0.5, status: 503, match: 'GET /call', times: 300 });
		const trigger = await start({ options: { startFrom: 'allHistory' } });

		await trigger.activate();
		await trigger.poll();
		await trigger.poll();

		expect([...trigger.emittedIds].sort()).toEqual(ids(history).sort());
		expect(new Set(trigger.emittedIds).size).toBe(1_500);
		for (const item of trigger.emitted) expect(item.status).toBe(statuses.get(item.id as string));
		expect(trigger.state?.pending).toEqual([]);
	}, 120_000);

	test('a call in progress that ends with a status nobody listed is output when it ends', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start();
		await trigger.activate();
		const call = await placeCall(sandbox, agent);
		await trigger.poll();
		expect(trigger.state?.pending).toEqual([call.id]);

		await endCall(sandbox, call.id, 'machine_detected');
		await trigger.poll();

		expect(trigger.emitted).toEqual([
			{ ...(await getCall(sandbox, call.id)), dedupe_key: `${call.id}:call_ended` },
		]);
		expect(trigger.emitted[0].status).toBe('machine_detected');
	});
});

describe('End Statuses', () => {
	test('only calls that ended with a listed status (any spelling of case and spaces); the others are neither output nor kept', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start({ options: { endStatuses: ' No-Answer ,busy' } });
		await trigger.activate();
		const [a, b, c, d] = [
			await placeCall(sandbox, agent, { to: '+14155550101' }),
			await placeCall(sandbox, agent, { to: '+14155550102' }),
			await placeCall(sandbox, agent, { to: '+14155550103' }),
			await placeCall(sandbox, agent, { to: '+14155550104' }),
		];
		await endCall(sandbox, a.id, 'no-answer');
		await endCall(sandbox, b.id, 'completed');
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([a.id]);
		expect(trigger.state?.pending).toEqual([c.id, d.id]);

		await endCall(sandbox, c.id, 'failed');
		await endCall(sandbox, d.id, 'busy');
		await trigger.poll();
		await trigger.poll();

		expect(trigger.emittedIds).toEqual([a.id, d.id]);
		expect(trigger.state?.pending).toEqual([]);
	});
});

describe('End Statuses in Fetch Test Event', () => {
	test('the latest call that ended with a listed status, not a newer one with another status', async () => {
		const agent = await createAgent(sandbox);
		const busy = await placeCall(sandbox, agent, { to: '+14155550101' });
		const completed = await placeCall(sandbox, agent, { to: '+14155550102' });
		await endCall(sandbox, busy.id, 'busy');
		await endCall(sandbox, completed.id, 'completed');
		const trigger = await start({ options: { endStatuses: 'busy' } });

		const run = await trigger.fetchTestEvent();

		expect(run.items.map((item) => item.json.id)).toEqual([busy.id]);
		expect(run.items[0].json.dedupe_key).toBe(`${busy.id}:call_ended`);
	});
});

describe('dedupe_key', () => {
	test('a call output again after n8n stopped before saving carries the same key: what a Remove Duplicates step compares', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start();
		await trigger.activate();
		const call = await placeCall(sandbox, agent);
		await endCall(sandbox, call.id);
		const before = trigger.savedNodeData;
		await trigger.poll();

		// n8n stopped after the execution started but before the static data was saved.
		await trigger.crashAndRestart(before);

		expect(trigger.emitted.map((item) => item.dedupe_key)).toEqual([
			`${call.id}:call_ended`,
			`${call.id}:call_ended`,
		]);
	});
});
