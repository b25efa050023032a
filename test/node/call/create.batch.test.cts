/**
 * Call → Create over many items: Calls at Once, Max New Calls per Minute, one schedule for every wait.
 * Run in n8n's engine against the sandbox, whose call-load endpoint says how many calls were in progress
 * at once and how many were created in any 60 s window.
 */
import { allCalls, callsPosted, createAgent, wireLines } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { hintsOf, jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ callDurationMs: 1_500 });

const leads = (count: number, first = 1001) =>
	Array.from({ length: count }, (_, n) => ({
		name: `Lead ${n}`,
		phone: `+1415555${String(first + n)}`,
	}));

function createFor(agentId: string, options: Record<string, number | boolean>) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agentId),
		to: '={{ $json.phone }}',
		context: '=Renewal for {{ $json.name }}',
		options,
	};
}

const callLoad = async () => (await sandbox.control('GET', '/call-load')).body.accounts[0];
const posts = () => callsPosted(sandbox);

let agent: any;
beforeEach(async () => {
	agent = await createAgent(sandbox, { name: 'Renewals' });
	await sandbox.clearRequests();
});

describe('Call → Create, several calls at once', () => {
	test('waiting, 3 at once: never more than 3 in progress, every outcome on its own lead, in input order', async () => {
		const input = leads(7);
		const run = await runWith(
			sandbox,
			createFor(agent.id, { waitForEnd: true, firstCheckSeconds: 1, callsAtOnce: 3 }),
			{ input },
		);

		const calls = jsonOf(run);
		expect(calls.map((call) => call.to)).toEqual(input.map((lead) => lead.phone));
		expect(calls.map((call) => call.context)).toEqual(
			input.map((lead) => `Renewal for ${lead.name}`),
		);
		expect(run.items.map((item) => item.pairedItem)).toEqual(input.map((_, item) => ({ item })));
		for (const call of calls) {
			expect(call).toMatchObject({ ended: true, status: 'completed' });
			expect(Date.parse(call.end_seen_at)).toBeGreaterThan(Date.parse(call.placed_at));
		}
		expect(await callLoad()).toMatchObject({ calls_created: 7, max_in_progress: 3 });
		expect(await posts()).toBe(7);
		expect(hintsOf(run)).toEqual(['Calls: 7 placed (7 ended)']);
	});

	test('Calls at Once 1 (the default) waits for each call before placing the next', async () => {
		const run = await runWith(
			sandbox,
			createFor(agent.id, { waitForEnd: true, firstCheckSeconds: 1 }),
			{ input: leads(3) },
		);

		expect(jsonOf(run).map((call) => call.ended)).toEqual([true, true, true]);
		expect(await callLoad()).toMatchObject({ calls_created: 3, max_in_progress: 1 });
	});

	test('Max New Calls per Minute: no more calls placed in 60 s than allowed, even with calls free to start', async () => {
		let cancelledAt = 0;
		const twoPlaced = waitFor('two calls placed', async () =>
			(await posts()) >= 2 ? true : undefined,
		).then(async () => {
			// The third would be due only a minute after the first: nothing more is sent meanwhile.
			await sleep(2_000);
			cancelledAt = Date.now();
		});

		const run = await runWith(
			sandbox,
			createFor(agent.id, { callsAtOnce: 5, maxCallsPerMinute: 2 }),
			{ input: leads(3), cancelWhen: twoPlaced },
		);

		expect(Date.now() - cancelledAt).toBeLessThan(1_000);
		expect(run.error?.message).toBe('The execution was cancelled');
		expect(await callLoad()).toMatchObject({ calls_created: 2, max_created_in_60s: 2 });
		expect(await posts()).toBe(2);
	});

	test('stopping the workflow stops every wait and places no new call', async () => {
		let cancelledAt = 0;
		const threePlaced = waitFor('three calls placed', async () =>
			(await posts()) >= 3 ? true : undefined,
		).then(() => {
			cancelledAt = Date.now();
		});

		const run = await runWith(
			sandbox,
			createFor(agent.id, { waitForEnd: true, firstCheckSeconds: 10, callsAtOnce: 3 }),
			// Numbers no earlier test called: the process's gate asks the service for a call it placed
			// to a number (GET /call) when the number is wanted again.
			{ input: leads(6, 3001), cancelWhen: threePlaced },
		);

		expect(Date.now() - cancelledAt).toBeLessThan(1_000);
		expect(run.error?.message).toBe('The execution was cancelled');
		await sleep(300);
		expect(await posts()).toBe(3);
		expect((await wireLines(sandbox)).filter((line) => line.startsWith('GET /call '))).toEqual([]);
	});
});

describe('Call → Create, several at once: the rules of one call hold per item', () => {
	test('an invalid item stops the node before any call is placed', async () => {
		const input = leads(4);
		input[2].phone = '4155551003';

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 4 }), { input });

		expect(run.error?.message).toMatch(/^To .*\[item 2\]/);
		expect(await wireLines(sandbox)).toEqual([]);
		expect(await allCalls(sandbox)).toEqual([]);
	});

	test.each([
		[{ callsAtOnce: 51 }, /^Calls at Once must be a whole number .*50.* \(got 51\) \[item 0\]$/],
		[
			{ maxCallsPerMinute: 1.5 },
			/^Max New Calls per Minute must be a whole number .*\(got 1\.5\) \[item 0\]$/,
		],
	])('%j is an input error before anything is sent', async (options, message) => {
		const run = await runWith(sandbox, createFor(agent.id, options), { input: leads(2) });

		expect(run.error?.message).toMatch(message);
		expect(await wireLines(sandbox)).toEqual([]);
	});

	test('an item the service refuses stops the batch: a call waiting for its slot is not placed', async () => {
		await sandbox.faults({ error_rate: 1, status: 400, match: 'POST /call', times: 1 });
		const started = Date.now();

		const run = await runWith(
			sandbox,
			createFor(agent.id, { callsAtOnce: 2, maxCallsPerMinute: 1 }),
			{ input: leads(2) },
		);

		expect(run.error?.context?.itemIndex).toBe(0);
		expect(Date.now() - started).toBeLessThan(5_000);
		await sleep(1_500);
		expect(await posts()).toBe(1);
		expect(await allCalls(sandbox)).toEqual([]);
	});

	test('On Error → Continue: the invalid item is an error item in its place, the others are called', async () => {
		const input = leads(4);
		input[2].phone = '4155551003';

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 4 }), {
			input,
			continueOnFail: true,
		});

		const items = jsonOf(run);
		expect(items.map((item) => item.to ?? 'error')).toEqual([
			input[0].phone,
			input[1].phone,
			'error',
			input[3].phone,
		]);
		expect(items[2].error).toMatch(/\[item 2\]/);
		expect(run.items.map((item) => item.pairedItem)).toEqual(input.map((_, item) => ({ item })));
		expect(await allCalls(sandbox)).toHaveLength(3);
		expect(hintsOf(run)).toEqual(['Calls: 3 placed, 1 failed']);
	});

	test('5xx after the service placed the calls, 3 at once: each number called once, each call found', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'after', times: 3 });
		const input = leads(5);

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 3 }), { input });

		const calls = jsonOf(run);
		expect(calls.map((call) => call.to)).toEqual(input.map((lead) => lead.phone));
		const placed = await allCalls(sandbox);
		expect(placed.map((call) => call.client_number).sort()).toEqual(
			input.map((lead) => lead.phone).sort(),
		);
		expect(new Set(calls.map((call) => call.id)).size).toBe(5);
		expect(await posts()).toBe(5);
	});

	test('5xx before the service acted, 3 at once, On Error → Continue: that item says so, no second dial', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'before', times: 1 });
		const input = leads(4);

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 3 }), {
			input,
			continueOnFail: true,
		});

		const items = jsonOf(run);
		const failed = items.filter((item) => item.error);
		expect(failed).toHaveLength(1);
		expect(failed[0].error).toMatch(/may not have been placed/);
		expect(await allCalls(sandbox)).toHaveLength(3);
		expect(await posts()).toBe(4);
		expect(run.items.map((item) => item.pairedItem)).toEqual(input.map((_, item) => ({ item })));
	});

	test('429 on POST /call: the batch waits as Retry-After asks, every lead is called once', async () => {
		await sandbox.faults({ rate_limit_per_s: 1, match: 'POST /call' });
		const input = leads(4);

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 4 }), { input });

		expect(jsonOf(run).map((call) => call.to)).toEqual(input.map((lead) => lead.phone));
		expect(await allCalls(sandbox)).toHaveLength(4);
		const attempts = (await sandbox.requests())
			.filter((request) => request.method === 'POST' && request.path === '/v1/call')
			.map((request) => ({ status: request.status, at: Date.parse(request.at) }));
		expect(attempts.filter((attempt) => attempt.status === 200)).toHaveLength(4);
		// After a 429 (Retry-After: 1), no call of the batch tries again before the second is over.
		for (const refused of attempts.filter((attempt) => attempt.status === 429)) {
			const next = attempts.filter((attempt) => attempt.at > refused.at + 100);
			for (const attempt of next) expect(attempt.at - refused.at).toBeGreaterThanOrEqual(950);
		}
	});

	test('version 1.2, 3 at once, the same number in three items: one call, the other two output it as skipped', async () => {
		const [first, other] = leads(2);
		const input = [first, first, other, first];

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 3 }), {
			input,
			typeVersion: 1.2,
		});

		const items = jsonOf(run);
		expect(await posts()).toBe(2);
		expect(await allCalls(sandbox)).toHaveLength(2);
		expect(items.map((call) => call.to)).toEqual(input.map((lead) => lead.phone));
		expect(items.map((call) => call.skipped ?? false)).toEqual([false, true, false, true]);
		expect(items[1].id).toBe(items[0].id);
		expect(items[3].id).toBe(items[0].id);
		expect(items[1].skipReason).toBe(
			`Item 0 of this run called ${first.phone} already (call ${items[0].id}), so it was not called again`,
		);
		expect(hintsOf(run)).toEqual(['Calls: 2 placed, 2 skipped']);
	});

	test('version 1.2, the same number twice, the first call unconfirmed: the second item does not dial it', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'before', times: 1 });
		const [lead] = leads(1);

		const run = await runWith(sandbox, createFor(agent.id, { callsAtOnce: 2 }), {
			input: [lead, lead],
			typeVersion: 1.2,
			continueOnFail: true,
		});

		const [first, second] = jsonOf(run);
		expect(first.error).toMatch(/^The call to \+14155551001 may not have been placed/);
		expect(second.error).toBe(
			'The call to +14155551001 may have been placed by an earlier item of this run: not placed again, check the call list [item 1]',
		);
		expect(await posts()).toBe(1);
		expect(await allCalls(sandbox)).toHaveLength(0);
	});
});

describe('Max Calls per Run counts one possible call once', () => {
	test('version 1.2, the first call unconfirmed and a later item with its number: a third number is still called under a limit of 2', async () => {
		await sandbox.faults({ error_rate: 1, match: 'POST /call', when: 'before', times: 1 });
		const [lead, other] = leads(2);

		const run = await runWith(sandbox, createFor(agent.id, { maxCallsPerRun: 2 }), {
			input: [lead, lead, other],
			typeVersion: 1.2,
			continueOnFail: true,
		});

		const [first, second, third] = jsonOf(run);
		expect(first.error).toMatch(/^The call to \+14155551001 may not have been placed/);
		expect(second.error).toMatch(/may have been placed by an earlier item of this run/);
		// The first two items stand for one possible call: it counts once, so the limit leaves room.
		expect(third).toMatchObject({ to: other.phone, status: 'in_progress' });
		expect(await posts()).toBe(2);
	});
});
