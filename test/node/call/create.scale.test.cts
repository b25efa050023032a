/**
 * Call → Create over long lists: its bookkeeping per item does not grow with the list (counted as reads
 * of the ledger's records, not timed), and the loops over all items before the first call give n8n's
 * event loop turns (counted as turns of a timer, not timed). Run in n8n's engine against the sandbox.
 */
import { createAgent } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type NodeRun } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 1_000 });

const leads = (count: number) =>
	Array.from({ length: count }, (_, n) => ({ phone: `+1415${String(2000001 + n)}` }));

function create(agentId: string, options: Record<string, number> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agentId),
		to: '={{ $json.phone }}',
		options,
	};
}

/** A record store that counts every read of it: a scan reads each record, a lookup one. */
function countingRecords() {
	const counter = { reads: 0 };
	const records = new Proxy({} as Record<string, unknown>, {
		get(target, key, receiver) {
			counter.reads++;
			return Reflect.get(target, key, receiver) as unknown;
		},
		getOwnPropertyDescriptor(target, key) {
			counter.reads++;
			return Reflect.getOwnPropertyDescriptor(target, key);
		},
		ownKeys(target) {
			counter.reads++;
			return Reflect.ownKeys(target);
		},
	});
	return { records, counter };
}

async function run(input: object[], more: Parameters<typeof runNode>[0]['contextData'] = {}) {
	const agent = await createAgent(sandbox, { name: `Renewals ${input.length}` });
	return await runNode({
		parameters: create(agent.id, { callsAtOnce: 10 }),
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: 1.1,
		input: input as never,
		contextData: more,
	});
}

test("the ledger's bookkeeping per item does not grow with the list: 10 times the items, at most 20 times the reads", async () => {
	const readsFor = async (count: number) => {
		const { records, counter } = countingRecords();
		const result: NodeRun = await run(leads(count), {
			'node:Voice Agent': { voiceAgentCalls: { records, sentAt: [] } },
		});
		expect(jsonOf(result)).toHaveLength(count);
		expect(Object.keys(records)).toHaveLength(count);
		return counter.reads;
	};

	const small = await readsFor(100);
	const large = await readsFor(1_000);

	// A scan of every record per item makes this about 100 (quadratic); a lookup per item about 10.
	expect(large / small).toBeLessThan(20);
}, 120_000);

test('the checks and lookups of many items give the event loop turns before the first call', async () => {
	// Every request fails at once, so the node stops at the first one: what runs before it is the
	// check and the lookup of every item.
	await sandbox.faults({ error_rate: 1, status: 400 });
	const turnsWhile = async (count: number) => {
		let turns = 0;
		let ticking = true;
		const tick = () => {
			if (!ticking) return;
			turns++;
			setTimeout(tick, 0);
		};
		setTimeout(tick, 0);
		const agentNumber = '+14155550100';
		const result = await runNode({
			parameters: {
				resource: 'call',
				operation: 'create',
				from: { __rl: true, mode: 'phoneNumber', value: agentNumber },
				to: '={{ $json.phone }}',
				options: {},
			},
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			typeVersion: 1.1,
			input: leads(count),
		});
		ticking = false;
		expect(result.error).toBeDefined();
		return turns;
	};

	const few = await turnsWhile(1);
	const many = await turnsWhile(5_000);

	// Without turns, the timer runs no more often beside 5,000 items than beside one.
	expect(many).toBeGreaterThan(few + 5);
}, 120_000);
