/**
 * The Voice Agent Call History Trigger polled as n8n polls it (n8n-core's PollContext and
 * PollTriggerExecutor; see ./poll.cts), against both services the sandbox plays, over HTTP: each call
 * that ended is output once, across polls and restarts, at a cost that grows with the new calls only.
 */
import * as api from '../../support/api.cts';
import { createAgent, wire, wireLines } from '../../support/api.cts';
import { transcriptLines } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import {
	asOutput,
	endCallOf,
	everyCall,
	newEndedCallsOf,
	PROFILES,
	seedCalls,
	textId,
} from '../../support/profiles.cts';
import { usePollTriggers } from './poll.cts';
import { useSandbox } from '../../support/sandbox.cts';

const ids = (calls: { id?: unknown }[]) => calls.map((call) => textId(call.id));

describe.each(PROFILES)('the %s service', (profile) => {
	/** A call as the trigger outputs it: with the key a Remove Duplicates step compares. */
	function emittedAs(call: any, event: 'call_ended' | 'new_call' = 'call_ended') {
		return { ...call, dedupe_key: `${call.id}:${event}` };
	}

	// Calls placed here never end by themselves (a live one rings until a test ends it); the tests end them.
	const sandbox = useSandbox({
		apiKeys: ['history-key', 'other-account-key'],
		callDurationMs: 3_600_000,
		ringMs: 3_600_000,
		profile,
	});
	const start = usePollTriggers(sandbox);

	/** Places a call; its id as the nodes give it. */
	async function placeCall(agent: { phone_number: string }, fields: Record<string, unknown> = {}) {
		const call = await api.placeCall(sandbox, agent, fields);
		return { ...call, id: textId(call.id) };
	}

	/** Ends a call: with the status given (documented), or hung up (live: a live call has no end status). */
	const endCall = (id: string, status = 'completed') => endCallOf(sandbox, profile, id, status);

	/** The status a call ended with, as the trigger outputs it. */
	const endedAs = (status: string) => (profile === 'live' ? 'completed' : status);

	/** A call as the service answers it now, as the nodes output it. */
	const getCall = async (id: string) => asOutput(await api.getCall(sandbox, id), profile);

	describe('first activation', () => {
		test('starts from now: nothing of the history is output, and it costs one list request', async () => {
			await seedCalls(sandbox, profile, { calls: 250 });
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
			const early = await placeCall(agent);
			const trigger = await start();
			await trigger.activate();

			await trigger.poll();
			expect(trigger.executions).toEqual([]);
			await endCall(early.id);
			await trigger.poll();

			expect(trigger.emittedIds).toEqual([early.id]);
			expect(trigger.emitted[0]).toEqual(emittedAs(await getCall(early.id)));
		});
	});

	describe('new calls across polls', () => {
		test('each call that ended is output once, in full, oldest first; calls in progress wait until they end', async () => {
			const agent = await createAgent(sandbox);
			const trigger = await start();
			await trigger.activate();
			const [a, b, c] = [
				await placeCall(agent, { to: '+14155550101' }),
				await placeCall(agent, { to: '+14155550102' }),
				await placeCall(agent, { to: '+14155550103' }),
			];

			await trigger.poll();
			expect(trigger.executions).toEqual([]);

			await endCall(c.id);
			await endCall(a.id, 'failed');
			await trigger.poll();
			expect(trigger.executions).toHaveLength(1);
			expect(ids(trigger.executions[0].items)).toEqual([a.id, c.id]);
			expect(trigger.executions[0].items[0]).toMatchObject({ status: endedAs('failed') });
			expect(trigger.executions[0].items[1]).toEqual(emittedAs(await getCall(c.id)));
			expect(trigger.executions[0].items[1].transcript).toEqual(expect.any(Array));

			const d = await placeCall(agent, { to: '+14155550104' });
			await endCall(d.id);
			await endCall(b.id);
			await trigger.poll();
			await trigger.poll();

			expect(trigger.executions).toHaveLength(2);
			expect(ids(trigger.executions[1].items)).toEqual([b.id, d.id]);
			expect(trigger.emittedIds.sort()).toEqual([a.id, b.id, c.id, d.id].sort());
		});

		test('a poll costs ceil(new/100) list requests and one GET /call per call that ended, not a read of the history', async () => {
			await seedCalls(sandbox, profile, { calls: 1_000 });
			const trigger = await start();
			await trigger.activate();
			const fresh = await newEndedCallsOf(sandbox, profile, 150);
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
			const first = await placeCall(agent);
			const second = await placeCall(agent);
			await endCall(first.id);
			await trigger.poll();
			expect(trigger.emittedIds).toEqual([first.id]);

			// A poll that outputs nothing leaves its state in memory only; n8n stops before saving it.
			const third = await placeCall(agent);
			await trigger.poll();
			await endCall(second.id);
			await endCall(third.id);
			await trigger.restart();
			await trigger.poll();

			expect(trigger.emittedIds).toEqual([first.id, second.id, third.id]);
			expect(trigger.executions).toHaveLength(2);
		});

		test('unpublished and published again: it goes on from where it was, outputting what ended meanwhile', async () => {
			const agent = await createAgent(sandbox);
			const trigger = await start();
			await trigger.activate();
			const call = await placeCall(agent);
			await trigger.poll();
			trigger.deactivate();
			await endCall(call.id);

			await trigger.activate();

			expect(trigger.emittedIds).toEqual([call.id]);
		});
	});

	describe('Fetch Test Event (manual)', () => {
		test('outputs the latest call that ended, in full, and changes no state', async () => {
			const agent = await createAgent(sandbox);
			await seedCalls(sandbox, profile, { calls: 5 });
			const trigger = await start({ options: { transcriptFormat: 'both' } });
			await trigger.activate();
			const ended = await placeCall(agent);
			await endCall(ended.id);
			await placeCall(agent);
			const before = trigger.savedNodeData;

			const run = await trigger.fetchTestEvent();

			expect(run.error).toBeUndefined();
			const full = await getCall(ended.id);
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
			await placeCall(agent);
			const trigger = await start({ agent: rl(textId(agent.id)) });

			const run = await trigger.fetchTestEvent();

			expect(run.error?.message).toBe(
				'No call matching the filters has ended among the latest 1: place a call and fetch again',
			);
		});
	});

	describe('Start From: a one-time backfill', () => {
		test('All History: the first poll outputs every ended call oldest first; calls in progress follow when they end', async () => {
			await seedCalls(sandbox, profile, { calls: 230 });
			const agent = await createAgent(sandbox);
			const live = await placeCall(agent);
			const history = await everyCall(sandbox, profile);
			const trigger = await start({ options: { startFrom: 'allHistory' } });

			await trigger.activate();

			expect(trigger.executions).toHaveLength(1);
			const endedOldestFirst = ids(history.filter((call) => textId(call.id) !== live.id)).reverse();
			expect(trigger.emittedIds).toEqual(endedOldestFirst);
			await endCall(live.id);
			await trigger.poll();
			await trigger.poll();
			expect(trigger.emittedIds).toEqual([...endedOldestFirst, live.id]);
		});

		test('Last Days: the calls created in the last N days, oldest first, and nothing older', async () => {
			await seedCalls(sandbox, profile, { calls: 300 });
			const history = await everyCall(sandbox, profile);
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
			const first = await placeCall(agent, { to: '+14155550101' });
			const second = await placeCall(agent, { to: '+14155550102' });
			await endCall(first.id);
			// As the list shows them at the poll: the second call still in progress (live: ringing).
			const listed = (await everyCall(sandbox, profile)).map((call) => asOutput(call, profile));
			expect(listed[0].status).toBe(profile === 'live' ? 'ringing' : 'in_progress');
			await sandbox.clearRequests();

			await trigger.poll();
			await endCall(second.id);
			await trigger.poll();

			expect(trigger.emitted).toEqual([
				emittedAs(listed[1], 'new_call'),
				emittedAs(listed[0], 'new_call'),
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
			const wanted = await placeCall(sales, { to: '+14155550111' });
			const otherNumber = await placeCall(sales, { to: '+14155550122' });
			const otherAgent = await placeCall(support, { to: '+14155550111' });
			for (const call of [wanted, otherNumber, otherAgent]) await endCall(call.id);
			await sandbox.clearRequests();

			await trigger.poll();

			expect(trigger.emittedIds).toEqual([wanted.id]);
			const listRequests = (await wire(sandbox)).filter((request) => request.path === '/calls');
			expect(listRequests.map((request) => request.query)).toEqual([
				{ agent_id: textId(sales.id), client_number: '+14155550111', limit: '100' },
			]);
		});

		test('an agent given by name is looked up again at every poll: a new agent of that name is followed', async () => {
			const first = await createAgent(sandbox, { name: 'Sales' });
			const trigger = await start({ agent: rl('Sales', 'name') });
			await trigger.activate();
			// n8n keeps one poll context while the workflow is published: the name must not stick to the old ID.
			expect((await sandbox.api('DELETE', '/agent', { query: { id: first.id } })).status).toBe(
				profile === 'live' ? 204 : 200,
			);
			const second = await createAgent(sandbox, { name: 'Sales' });
			await sandbox.clearRequests();

			// Another agent is another list: like a changed filter, the trigger starts from now.
			await trigger.poll();
			const call = await placeCall(second);
			await endCall(call.id);
			await trigger.poll();

			expect(trigger.emittedIds).toEqual([call.id]);
			const listRequests = (await wire(sandbox)).filter((request) => request.path === '/calls');
			expect(listRequests.every((request) => request.query.agent_id === textId(second.id))).toBe(
				true,
			);
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
			const oldCall = await placeCall(support);
			await endCall(oldCall.id);
			const trigger = await start({ agent: rl(textId(sales.id)) });
			await trigger.activate();

			trigger.setParameters({ agent: rl(textId(support.id)) });
			trigger.deactivate();
			await trigger.activate();
			const newCall = await placeCall(support);
			await endCall(newCall.id);
			await trigger.poll();

			expect(trigger.emittedIds).toEqual([newCall.id]);
		});

		test('a credential now pointing at another account: no history output as new, and it goes on from there', async () => {
			const [, otherKey] = sandbox.apiKeys;
			await seedCalls(sandbox, profile, { calls: 150, api_key: otherKey });
			const trigger = await start();
			await trigger.activate();
			await newEndedCallsOf(sandbox, profile, 3);
			await trigger.poll();
			expect(trigger.emitted).toHaveLength(3);

			// The same credential (same ID), its key changed to another account's: no call seen is listed.
			trigger.setCredentials({ apiKey: otherKey, baseUrl: sandbox.baseUrl });
			await trigger.poll();
			expect(trigger.emitted).toHaveLength(3);
			const fresh = await newEndedCallsOf(sandbox, profile, 2, otherKey);
			await trigger.poll();

			expect(trigger.emittedIds.slice(3)).toEqual(ids(fresh).reverse());
		});
	});

	describe('polls that overlap', () => {
		test('a poll that starts while one is still running outputs nothing: every call once', async () => {
			const trigger = await start();
			await trigger.activate();
			await newEndedCallsOf(sandbox, profile, 40);

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
			const call = await placeCall(agent, { context: 'Cleaning on Tuesday' });
			await endCall(call.id);

			await trigger.poll();

			const { transcript, ...rest } = await getCall(call.id);
			expect(trigger.emitted).toEqual([
				emittedAs({ ...rest, transcript_text: transcriptLines({ transcript }) }),
			]);
		});
	});
});
