/**
 * Call → Create's wait for a call of its agent that rings elsewhere (guards/ringingElsewhere.ts): the live
 * service lists a ringing call with no number, so an n8n process that did not place it cannot tell whether it
 * rings the number it wants. It waits until the call connects (its number shown) and looks the number up
 * again. These tests name what the wait must survive; "another process" is the package loaded afresh.
 */
import { createAgent } from '../../../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../../../support/clock.cts';
import { jsonOf } from '../../../../support/node.cts';
import { useSandbox } from '../../../../support/sandbox.cts';
import { sleep, waitFor } from '../../../../support/wait.cts';
import { create, dials, execution, inAnotherProcess } from '../liveRuns.cts';

const sandbox = useSandbox({ profile: 'live', callDurationMs: 60_000, ringMs: 8_000 });
beforeEach(() => createAgent(sandbox, { name: 'Front Desk' }));
afterEach(restoreClock);

const parameters = create({ skipCalledWithinMinutes: 15 });

async function readsOfTheCall(): Promise<number[]> {
	const requests = await sandbox.requests();
	return requests
		.filter((request) => request.method === 'GET' && request.path.endsWith('/call'))
		.map((request) => request.status ?? 0);
}

test('reads of the ringing call fail (500) while another process waits on it: it waits on, then outputs the call as skipped; phoned once', async () => {
	const to = '+14155556201';
	const [first] = jsonOf(await execution(sandbox, 'placer', { parameters, input: [{ to }] }));
	await sandbox.faults({ match: 'GET /call', status: 500, error_rate: 1 });
	const second = inAnotherProcess(sandbox, 'waiter', { parameters, input: [{ to }] });
	// The reads fail until well after the call has connected (8 s of ringing).
	await waitFor('a failed read of the call', async () =>
		(await readsOfTheCall()).includes(500) ? true : undefined,
	);
	await sleep(9_000);
	await sandbox.faults({});
	expect(jsonOf(await second)).toEqual([
		expect.objectContaining({ id: first.id, to, skipped: true }),
	]);
	expect(await readsOfTheCall()).toContain(200);
	expect(await dials(sandbox)).toEqual({ [to]: 1 });
}, 60_000);

test('while another process waits on the call ringing 8 s, it reads the call at most about once a second and at least every 5 s, and dials nothing', async () => {
	const to = '+14155556202';
	const [first] = jsonOf(await execution(sandbox, 'placer', { parameters, input: [{ to }] }));
	await sandbox.clearRequests();
	const [second] = jsonOf(
		await inAnotherProcess(sandbox, 'waiter', { parameters, input: [{ to }] }),
	);
	expect(second).toMatchObject({ id: first.id, to, skipped: true });

	// The wait's reads: GET /call before the number is looked up again (the skipped item's own read follows).
	const requests = await sandbox.requests();
	const lookUps = requests.map((request) => 'client_number' in request.query);
	const lookUpAgain = lookUps.lastIndexOf(true);
	const reads = requests
		.slice(0, lookUpAgain)
		.filter((request) => request.method === 'GET' && request.path.endsWith('/call'))
		.map((request) => Date.parse(request.at));
	// The agent's list already said the call rings: the first read of it comes a second later, not at once.
	const listed = requests.find(
		(request) => 'agent_id' in request.query && !('client_number' in request.query),
	);
	expect(reads[0] - Date.parse(listed?.at ?? '')).toBeGreaterThanOrEqual(500);
	expect(reads.length).toBeGreaterThanOrEqual(2);
	expect(reads.length).toBeLessThanOrEqual(8);
	const gaps = reads.slice(1).map((at, i) => at - reads[i]);
	// 1 s, then each 1.5 times later, at most 5 s; slack for a request's own time on a loaded machine.
	expect(Math.min(...gaps)).toBeGreaterThanOrEqual(500);
	expect(Math.max(...gaps)).toBeLessThanOrEqual(6_000);
	expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
}, 60_000);

test('its own ringing call does not hold up another number: a second execution in the same process dials at once', async () => {
	const [first] = jsonOf(
		await execution(sandbox, 'own-1', { parameters, input: [{ to: '+14155556203' }] }),
	);
	const [second] = jsonOf(
		await execution(sandbox, 'own-2', { parameters, input: [{ to: '+14155556204' }] }),
	);
	expect(second).toMatchObject({ outcome: 'placed', to: '+14155556204' });
	// The first call (8 s of ringing) still rings: the second did not wait for it to connect.
	const firstNow = await sandbox.api('GET', '/call', { query: { id: first.id } });
	expect(firstNow.body).toMatchObject({ in_progress: false, client_number: '' });
	expect(await dials(sandbox)).toEqual({ '+14155556203': 1, '+14155556204': 1 });
}, 60_000);

test('a call ringing elsewhere past 10 minutes, the service sending no Date header: the item fails, naming the call, and nothing is dialled', async () => {
	// Without the service's time the call never counts as never connected: the wait's own bound ends it.
	await sandbox.variants({ date_header: false });
	setClock('2026-04-14T10:00:00Z');
	const to = '+14155550000'; // the live profile's number that never answers
	// Placed from a fresh process too: this one remembers the calls of the earlier tests' services as ringing
	// (their IDs begin again at each reset), and with the clock set back it would wait on them.
	const [first] = jsonOf(
		await inAnotherProcess(sandbox, 'placer', { parameters, input: [{ to }] }),
	);
	// The clock moves once the waiter reads the call: a read its wait makes, after it set its bound.
	await sandbox.clearRequests();
	const second = inAnotherProcess(sandbox, 'waiter', { parameters, input: [{ to }] });
	await waitFor('a read of the ringing call', async () =>
		(await readsOfTheCall()).length > 0 ? true : undefined,
	);
	jumpClock(10 * 60_000 + 6_000);
	const { error } = await second;
	expect(error?.message).toBe(
		`The call to ${to} was not placed: call ${first.id} of this agent, placed elsewhere, has rung for over 10 minutes and the service does not show its number [item 0]`,
	);
	expect(await dials(sandbox)).toEqual({}); // since the log was cleared: the waiter dialled nothing
}, 60_000);
