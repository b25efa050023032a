/**
 * Call → Create, waiting, a call that is never seen to end: it keeps its Calls at Once slot for at most
 * Slot Hold (by default Max Wait again, from node version 1.4), then the next item starts
 * and the item's output says `slot_released`. Run in n8n's engine against the sandbox, whose calls here
 * stay in progress for ten minutes: longer than the test.
 */
import { callsPosted, createAgent } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 600_000 });

const leads = Array.from({ length: 3 }, (_, n) => ({ phone: `+1415555${1001 + n}` }));
/** Max Wait 0.6 s; each call stays in progress far longer. */
const MAX_WAIT_MINUTES = 0.01;

async function runStuck(typeVersion: number, options: Record<string, unknown> = {}) {
	const agent = await createAgent(sandbox, { name: 'Front Desk' });
	return await runNode({
		parameters: {
			resource: 'call',
			operation: 'create',
			from: rl(agent.id),
			to: '={{ $json.phone }}',
			options: {
				callsAtOnce: 1,
				waitForEnd: true,
				maxWaitMinutes: MAX_WAIT_MINUTES,
				firstCheckSeconds: 1,
				...options,
			},
		},
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion,
		input: leads,
	});
}
const loadOf = async () => (await sandbox.control('GET', '/call-load')).body.accounts[0];

// The bound a user computes from the options: ceil(3 leads / 1 at once) × (Max Wait + Slot Hold), here
// 3 × 1.2 s, plus the requests; the test's own timeout is far above it and far below the calls' length.
test('version 1.4, Calls at Once 1, every call stays in progress: each lead is called, the slots let go after Max Wait twice', async () => {
	const result = await runStuck(1.4);

	const items = jsonOf(result);
	expect(items.map((item) => item.to)).toEqual(leads.map((lead) => lead.phone));
	expect(items.map((item) => item.outcome)).toEqual(['placed', 'placed', 'placed']);
	expect(items.map((item) => item.ended)).toEqual([false, false, false]);
	// From 1.4 the slot is the node's: the last call keeps it for its Slot Hold too, then lets it go.
	expect(items.map((item) => item.slot_released ?? false)).toEqual([true, true, true]);
	expect(await callsPosted(sandbox)).toBe(3);
	// The one exception to Calls at Once: a call let go is still in progress beside the next one.
	expect(await loadOf()).toMatchObject({ calls_created: 3, in_progress: 3, max_in_progress: 3 });
}, 30_000);

test('version 1.3 with Slot Hold set: the same bound', async () => {
	const result = await runStuck(1.3, { slotHoldMinutes: 0.01 });

	const items = jsonOf(result);
	// Before 1.4 the last item lets go because no item of its run is left to start, not because of the bound.
	expect(items.map((item) => item.slot_released ?? false)).toEqual([true, true, false]);
	expect(await callsPosted(sandbox)).toBe(3);
}, 30_000);

test('Slot Hold that is not a number of minutes fails before any call, naming it', async () => {
	const result = await runStuck(1.4, { slotHoldMinutes: -1 });

	expect(result.error?.message).toMatch(/^Slot Hold \(Minutes\) must be a number/);
	expect(await callsPosted(sandbox)).toBe(0);
});
