/**
 * The Voice Agent Call History Trigger polled as n8n polls it (n8n-core's PollContext and
 * PollTriggerExecutor; see ./poll.cts), against the sandbox over HTTP: each call that ended
 * is output once, across polls and restarts, at a cost that grows with the new calls only.
 */
import {
	allCalls,
	createAgent,
	endCall,
	getCall,
	newEndedCalls,
	placeCall,
	wire,
	wireLines,
} from '../../support/api.cts';
import { ids, transcriptLines } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { usePollTriggers } from './poll.cts';
import { useSandbox } from '../../support/sandbox.cts';

/** A call as the trigger outputs it: with the key a Remove Duplicates step compares. */
function emittedAs(call: any, event: 'call_ended' | 'new_call' = 'call_ended') {
	return { ...call, dedupe_key: `${call.id}:${event}` };
}

// Calls placed here never end by themselves; the tests end them.
const sandbox = useSandbox({
	apiKeys: ['history-key', 'other-account-key'],
	callDurationMs: 3_600_000,
});
const start = usePollTriggers(sandbox);

describe('first activation', () => {
	test('starts from now: nothing of the history is output, and it costs one list request', async () => {
		await sandbox.seed({ calls: 250 });
		const trigger = await start();
		await sandbox.clearRequests();

		await trigger.activate();

		expect(trigger.executions).toEqual([]);
		expect(await wireLines(sandbox)).toEqual(['GET /calls 200']);
		await sandbox.clearRequests();
		await trigger.poll();
		expect(trigger.executions).toEqual([]);
		expect(await wireLines(sandbox)).toEqual(['GET /calls 200']);
	});

	test('a call in progress at activation is output when it ends', async () => {
		const agent = await createAgent(sandbox);
		const early = await placeCall(sandbox, agent);
		const trigger = await start();
		await trigger.activate();

		await trigger.poll();
		expect(trigger.executions).toEqual([]);
		await endCall(sandbox, early.id);
		await trigger.poll();

		expect(trigger.emittedIds).toEqual([early.id]);
		expect(trigger.emitted[0]).toEqual(emittedAs(await getCall(sandbox, early.id)));
	});
});

describe('new calls across polls', () => {
	test('each call that ended is output once, in full, oldest first; calls in progress wait until they end', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start();
		await trigger.activate();
		const [a, b, c] = [
			await placeCall(sandbox, agent, { to: '+14155550101' }),
			await placeCall(sandbox, agent, { to: '+14155550102' }),
			await placeCall(sandbox, agent, { to: '+14155550103' }),
		];

		await trigger.poll();
		expect(trigger.executions).toEqual([]);

		await endCall(sandbox, c.id);
		await endCall(sandbox, a.id, 'failed');
		await trigger.poll();
		expect(trigger.executions).toHaveLength(1);
		expect(ids(trigger.executions[0].items as any)).toEqual([a.id, c.id]);
		expect(trigger.executions[0].items[0]).toMatchObject({ status: 'failed' });
		expect(trigger.executions[0].items[1]).toEqual(emittedAs(await getCall(sandbox, c.id)));
		expect(trigger.executions[0].items[1].transcript).toEqual(expect.any(Array));

		const d = await placeCall(sandbox, agent, { to: '+14155550104' });
		await endCall(sandbox, d.id);
		await endCall(sandbox, b.id);
		await trigger.poll();
		await trigger.poll();

		expect(trigger.executions).toHaveLength(2);
		expect(ids(trigger.executions[1].items as any)).toEqual([b.id, d.id]);
		expect(trigger.emittedIds.sort()).toEqual([a.id, b.id, c.id, d.id].sort());
	});

	test('a poll costs ceil(new/100) list requests and one GET /call per call that ended, not a read of the history', async () => {
		await sandbox.seed({ calls: 1_000 });
		const trigger = await start();
		await trigger.activate();
		const fresh = await newEndedCalls(sandbox, 150);
		await sandbox.clearRequests();

		await trigger.poll();

		expect(trigger.emittedIds).toEqual(ids(fresh).reverse());
		const lines = await wireLines(sandbox);
		expect(lines.filter((line) => line.startsWith('GET /calls '))).toEqual(
			Array(2).fill('GET /calls 200'),
		);
		expect(lines.filter((line) => line.startsWith('GET /call '))).toHaveLength(150);
		expect(lines).toHaveLength(152);
	});
});

describe('restarts', () => {
	test('the saved state is what a restart starts from: calls that ended meanwhile are output once, none twice', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start();
		await trigger.activate();
		const first = await placeCall(sandbox, agent);
		const second = await placeCall(sandbox, agent);
		await endCall(sandbox, first.id);
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([first.id]);

		// A poll that outputs nothing leaves its state in memory only; n8n stops before saving it.
		const third = await placeCall(sandbox, agent);
		await trigger.poll();
		await endCall(sandbox, second.id);
		await endCall(sandbox, third.id);
		await trigger.restart();
		await trigger.poll();

		expect(trigger.emittedIds).toEqual([first.id, second.id, third.id]);
		expect(trigger.executions).toHaveLength(2);
	});

	test('unpublished and published again: it goes on from where it was, outputting what ended meanwhile', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start();
		await trigger.activate();
		const call = await placeCall(sandbox, agent);
		await trigger.poll();
		trigger.deactivate();
		await endCall(sandbox, call.id);

		await trigger.activate();

		expect(trigger.emittedIds).toEqual([call.id]);
	});
});

describe('Fetch Test Event (manual)', () => {
	test('outputs the latest call that ended, in full, and changes no state', async () => {
		const agent = await createAgent(sandbox);
		await sandbox.seed({ calls: 5 });
		const trigger = await start({ options: { transcriptFormat: 'both' } });
		await trigger.activate();
		const ended = await placeCall(sandbox, agent);
		await endCall(sandbox, ended.id);
		await placeCall(sandbox, agent);
		const before = trigger.savedNodeData;

		const run = await trigger.fetchTestEvent();

		expect(run.error).toBeUndefined();
		const full = await getCall(sandbox, ended.id);
		expect(run.items.map((item) => item.json)).toEqual([
			emittedAs({ ...full, transcript_text: transcriptLines(full) }),
		]);
		expect(run.workflow.staticData.__dataChanged).toBe(false);
		expect(trigger.savedNodeData).toEqual(before);
		// The trigger still outputs that call when it polls.
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([ended.id]);
	});

	test('with no ended call yet: a clear error', async () => {
		const agent = await createAgent(sandbox);
		await placeCall(sandbox, agent);
		const trigger = await start({ agent: rl(agent.id) });

		const run = await trigger.fetchTestEvent();

		expect(run.error?.message).toBe(
			'No call matching the filters has ended among the latest 1: place a call and fetch again',
		);
	});
});

describe('Start From: a one-time backfill', () => {
	test('All History: the first poll outputs every ended call oldest first; calls in progress follow when they end', async () => {
		await sandbox.seed({ calls: 230 });
		const agent = await createAgent(sandbox);
		const live = await placeCall(sandbox, agent);
		const history = await allCalls(sandbox);
		const trigger = await start({ options: { startFrom: 'allHistory' } });

		await trigger.activate();

		expect(trigger.executions).toHaveLength(1);
		const endedOldestFirst = ids(history.filter((call) => call.id !== live.id)).reverse();
		expect(trigger.emittedIds).toEqual(endedOldestFirst);
		await endCall(sandbox, live.id);
		await trigger.poll();
		await trigger.poll();
		expect(trigger.emittedIds).toEqual([...endedOldestFirst, live.id]);
	});

	test('Last Days: the calls created in the last N days, oldest first, and nothing older', async () => {
		await sandbox.seed({ calls: 300 });
		const history = await allCalls(sandbox);
		const trigger = await start({ options: { startFrom: 'lastDays', startFromDays: 7 } });

		await trigger.activate();

		const weekAgo = Date.now() - 7 * 24 * 3_600_000;
		const recent = history.filter((call) => Date.parse(call.created_at) >= weekAgo);
		expect(recent.length).toBeGreaterThan(20);
		expect(recent.length).toBeLessThan(history.length - 20);
		expect(trigger.emittedIds).toEqual(ids(recent).reverse());
	});
});

describe('New Call', () => {
	test('each new call is output once, as the list shows it, oldest first, whatever its status; no GET /call', async () => {
		const agent = await createAgent(sandbox);
		const trigger = await start({ event: 'newCall' });
		await trigger.activate();
		const first = await placeCall(sandbox, agent, { to: '+14155550101' });
		const second = await placeCall(sandbox, agent, { to: '+14155550102' });
		await endCall(sandbox, first.id);
		await sandbox.clearRequests();

		await trigger.poll();
		await endCall(sandbox, second.id);
		await trigger.poll();

		const listed = await allCalls(sandbox);
		expect(trigger.emitted).toEqual([
			emittedAs(listed[1], 'new_call'),
			emittedAs({ ...listed[0], status: 'in_progress' }, 'new_call'),
		]);
		expect((await wireLines(sandbox)).every((line) => line.startsWith('GET /calls '))).toBe(true);
	});
});

describe('filters', () => {
	test('only calls of the agent (picked by name) and the client number; the service filters the list', async () => {
		const sales = await createAgent(sandbox, { name: 'Sales' });
		const support = await createAgent(sandbox, { name: 'Support' });
		const trigger = await start({
			agent: rl('Sales', 'name'),
			filters: { clientNumber: '+14155550111' },
		});
		await trigger.activate();
		const wanted = await placeCall(sandbox, sales, { to: '+14155550111' });
		const otherNumber = await placeCall(sandbox, sales, { to: '+14155550122' });
		const otherAgent = await placeCall(sandbox, support, { to: '+14155550111' });
		for (const call of [wanted, otherNumber, otherAgent]) await endCall(sandbox, call.id);
		await sandbox.clearRequests();

		await trigger.poll();

		expect(trigger.emittedIds).toEqual([wanted.id]);
		const listRequests = (await wire(sandbox)).filter((request) => request.path === '/calls');
		expect(listRequests.map((request) => request.query)).toEqual([
			{ agent_id: sales.id, client_number: '+14155550111', limit: '100' },
		]);
	});

	test('an agent given by name is looked up again at every poll: a new agent of that name is followed', async () => {
		const first = await createAgent(sandbox, { name: 'Sales' });
		const trigger = await start({ agent: rl('Sales', 'name') });
		await trigger.activate();
		// n8n keeps one poll context while the workflow is published: the name must not stick to the old ID.
		expect((await sandbox.api('DELETE', '/agent', { query: { id: first.id } })).status).toBe(200);
		const second = await createAgent(sandbox, { name: 'Sales' });
		await sandbox.clearRequests();

		// Another agent is another list: like a changed filter, the trigger starts from now.
		await trigger.poll();
		const call = await placeCall(sandbox, second);
		await endCall(sandbox, call.id);
		await trigger.poll();

		expect(trigger.emittedIds).toEqual([call.id]);
		const listRequests = (await wire(sandbox)).filter((request) => request.path === '/calls');
		expect(listRequests.every((request) => request.query.agent_id === second.id)).toBe(true);
	});

	test('a client number that is not E.164: publishing fails, naming the field', async () => {
		const trigger = await start({ filters: { clientNumber: '555-0100' } });

		await expect(trigger.activate()).rejects.toThrow(
			'Client Number must start with + and the country code, like +1 415 555 0123 (got "555-0100")',
		);
	});

	test('other filters start afresh from now: the calls of the new filter are not output as new', async () => {
		const sales = await createAgent(sandbox, { name: 'Sales' });
		const support = await createAgent(sandbox, { name: 'Support' });
		const oldCall = await placeCall(sandbox, support);
		await endCall(sandbox, oldCall.id);
		const trigger = await start({ agent: rl(sales.id) });
		await trigger.activate();

		trigger.setParameters({ agent: rl(support.id) });
		trigger.deactivate();
		await trigger.activate();
		const newCall = await placeCall(sandbox, support);
		await endCall(sandbox, newCall.id);
		await trigger.poll();

		expect(trigger.emittedIds).toEqual([newCall.id]);
	});

	test('a credential now pointing at another account: no history output as new, and it goes on from there', async () => {
		const [, otherKey] = sandbox.apiKeys;
		await sandbox.seed({ calls: 150, api_key: otherKey });
		const trigger = await start();
		await trigger.activate();
		await newEndedCalls(sandbox, 3);
		await trigger.poll();
		expect(trigger.emitted).toHaveLength(3);

		// The same credential (same ID), its key changed to another account's: no call seen is listed.
		trigger.setCredentials({ apiKey: otherKey, baseUrl: sandbox.baseUrl });
		await trigger.poll();
		expect(trigger.emitted).toHaveLength(3);
		const fresh = await newEndedCalls(sandbox, 2, otherKey);
		await trigger.poll();

		expect(trigger.emittedIds.slice(3)).toEqual(ids(fresh).reverse());
	});
});

describe('polls that overlap', () => {
	test('a poll that starts while one is still running outputs nothing: every call once', async () => {
		const trigger = await start();
		await trigger.activate();
		await newEndedCalls(sandbox, 40);

		await trigger.overlappingPolls();
		await trigger.poll();

		expect(trigger.emitted).toHaveLength(40);
		expect(new Set(trigger.emittedIds).size).toBe(40);
	});
});

describe('Transcript Format', () => {
	test('Text: each ended call with its transcript as one text, a line per turn', async () => {
		const agent = await createAgent(sandbox, { name: 'Clinic' });
		const trigger = await start({ options: { transcriptFormat: 'text' } });
		await trigger.activate();
		const call = await placeCall(sandbox, agent, { context: 'Cleaning on Tuesday' });
		await endCall(sandbox, call.id);

		await trigger.poll();

		const { transcript, ...rest } = await getCall(sandbox, call.id);
		expect(trigger.emitted).toEqual([
			emittedAs({ ...rest, transcript_text: transcriptLines({ transcript }) }),
		]);
	});
});
