/**
 * GET /_sandbox/call-load: per account, the calls in progress, the most in progress at once, the calls
 * created and the most created in any 60 s window, so a test or a benchmark can check that a client kept
 * to its Calls at Once and its pace.
 */
import { CallLoad } from '../../sandbox/callLoad.js';
import { createAgent, endCall, placeCall } from '../support/api.cts';
import { useSandbox } from '../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: ['load-a', 'load-b'], callDurationMs: 60_000 });

const load = async () => (await sandbox.control('GET', '/call-load')).body.accounts;

test('starts at zero for every account, named by its position, never by its key', async () => {
	expect(await load()).toEqual([
		{ account: 0, in_progress: 0, max_in_progress: 0, calls_created: 0, max_created_in_60s: 0 },
		{ account: 1, in_progress: 0, max_in_progress: 0, calls_created: 0, max_created_in_60s: 0 },
	]);
	expect(JSON.stringify(await load())).not.toContain('load-a');
});

test('counts calls in progress and created per account; the most in progress stays after calls end', async () => {
	const agent = await createAgent(sandbox, { name: 'Caller' });
	const first = await placeCall(sandbox, agent, { to: '+14155550101' });
	await placeCall(sandbox, agent, { to: '+14155550102' });
	await placeCall(sandbox, agent, { to: '+14155550103' });
	await endCall(sandbox, first.id);
	await placeCall(sandbox, agent, { to: '+14155550104' });

	const [a, b] = await load();
	expect(a).toEqual({
		account: 0,
		in_progress: 3,
		max_in_progress: 3,
		calls_created: 4,
		max_created_in_60s: 4,
	});
	expect(b).toMatchObject({ calls_created: 0, max_in_progress: 0 });
});

test('DELETE starts counting again from the calls in progress now; reset forgets them', async () => {
	const agent = await createAgent(sandbox, { name: 'Caller' });
	const first = await placeCall(sandbox, agent, { to: '+14155550101' });
	await placeCall(sandbox, agent, { to: '+14155550102' });
	await endCall(sandbox, first.id);

	expect((await sandbox.control('DELETE', '/call-load')).status).toBe(200);
	expect((await load())[0]).toEqual({
		account: 0,
		in_progress: 1,
		max_in_progress: 1,
		calls_created: 0,
		max_created_in_60s: 0,
	});

	await sandbox.reset();
	expect((await load())[0]).toMatchObject({ in_progress: 0, max_in_progress: 0 });
});

test('the 60 s window slides: a call created 60 s after another is in a window of its own', () => {
	const load = new CallLoad();
	for (const at of [0, 30_000, 59_999]) load.created('key', at);
	load.created('key', 60_000);
	load.created('key', 119_999);

	expect(load.describe(['key']).accounts[0]).toMatchObject({
		calls_created: 5,
		max_created_in_60s: 3,
	});
});
