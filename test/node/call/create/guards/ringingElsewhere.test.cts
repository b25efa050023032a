/**
 * Call → Create's wait for a call of its agent that rings elsewhere (guards/ringingElsewhere.ts): the live
 * service lists a ringing call with no number, so an n8n process that did not place it cannot tell whether it
 * rings the number it wants. It waits until the call connects (its number shown) and looks the number up
 * again. These tests name what the wait must survive; "another process" is the package loaded afresh.
 */
import { createAgent } from '../../../../support/api.cts';
import { jsonOf } from '../../../../support/node.cts';
import { useSandbox } from '../../../../support/sandbox.cts';
import { sleep, waitFor } from '../../../../support/wait.cts';
import { create, dials, execution, inAnotherProcess } from '../liveRuns.cts';

const sandbox = useSandbox({ profile: 'live', callDurationMs: 60_000, ringMs: 8_000 });
beforeEach(() => createAgent(sandbox, { name: 'Front Desk' }));

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
