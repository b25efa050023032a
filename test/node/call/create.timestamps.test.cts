/**
 * Timestamps the contract leaves open never under-count (issue 34, item 3): a service that writes
 * `created_at` without a zone (here its own wall-clock time at -05:00, the sandbox's `local_no_zone`) must
 * not make a call look hours older than it is, for the skip window or for Max Calls per Hour. Run in
 * n8n-core's real engine against the sandbox; Jest's process keeps the machine's zone (UTC or east of it,
 * where Date.parse reads such a time at least 5 hours early).
 */
import type { INodeParameters } from 'n8n-workflow';

import { createAgent, endCall, placeCall, wire } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type NodeRun } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

function create(options: INodeParameters = {}, more: INodeParameters = {}): INodeParameters {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '+14155550123',
		options,
		...more,
	};
}

/** A run as another n8n process makes it: the package loaded afresh, nothing of this module's memory shared. */
async function inFreshProcess(parameters: INodeParameters): Promise<NodeRun> {
	let result: NodeRun | undefined;
	await jest.isolateModulesAsync(async () => {
		const fresh = require('../../support/node.cts') as typeof import('../../support/node.cts');
		result = await fresh.runNode({
			parameters,
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			typeVersion: 1.3,
		});
	});
	return result!;
}

const dials = async () =>
	(await wire(sandbox)).filter((request) => request.method === 'POST' && request.path === '/call');

test('the machine keeps a zone at UTC or east of it, where the service writes times 5 hours "early"', () => {
	expect(new Date(2026, 10, 27).getTimezoneOffset()).toBeLessThanOrEqual(0);
});

test('skip window 15: a call that just ended, its created_at without a zone, is skipped, not called again', async () => {
	const agent = await createAgent(sandbox, { name: 'Front Desk' });
	const first = await placeCall(sandbox, agent, { to: '+14155550123' });
	await endCall(sandbox, first.id);
	await sandbox.variants({ timestamps: 'local_no_zone' });
	await sandbox.clearRequests();

	const [skipped] = jsonOf(
		await runNode({
			parameters: create(),
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
			typeVersion: 1.2,
		}),
	);

	expect(skipped).toMatchObject({ id: first.id, skipped: true });
	expect(skipped.skipReason).toMatch(/ began 0 min 0 s ago, so it was not called again/);
	expect(await dials()).toEqual([]);
});

test('Max Calls per Hour 2: two calls of the last minute, their created_at without a zone, use the hour up', async () => {
	const agent = await createAgent(sandbox, { name: 'Front Desk' });
	await placeCall(sandbox, agent, { to: '+14155559001' });
	await placeCall(sandbox, agent, { to: '+14155559002' });
	await sandbox.variants({ timestamps: 'local_no_zone' });
	await sandbox.clearRequests();

	const result = await inFreshProcess(create({ maxCallsPerHour: 2 }));

	expect(result.error?.message).toMatch(
		/^Max Calls per Hour \(2\) is reached: the agent has 2 calls in the last hour, so the call to \+14155550123 was not placed/,
	);
	expect(await dials()).toEqual([]);
}, 60_000);
