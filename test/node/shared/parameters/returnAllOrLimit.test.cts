/** Return All and Limit of the Voice Agent node's list operations across many pages, run in n8n's engine. */
import { allCalls, wire } from '../../../support/api.cts';
import { API_KEY, ids } from '../../../support/fixtures.cts';
import { jsonOf, runWith } from '../../../support/node.cts';
import { useSandbox } from '../../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

test('Limit 250 asks for pages of 100, 100 and 50 and outputs the 250 newest calls', async () => {
	await sandbox.seed({ agents: 3, calls: 400 });
	const expected = (await allCalls(sandbox)).slice(0, 250);
	await sandbox.clearRequests();

	const run = await runWith(sandbox, {
		resource: 'call',
		operation: 'getMany',
		returnAll: false,
		limit: 250,
	});

	expect(jsonOf(run)).toEqual(expected);
	const requests = await wire(sandbox);
	expect(requests.map((request) => request.query)).toEqual([
		{ limit: '100' },
		{ limit: '100', cursor: expect.any(String) },
		{ limit: '50', cursor: expect.any(String) },
	]);
	expect(
		requests.every(
			(request) => request.method === 'GET' && request.path === '/calls' && request.status === 200,
		),
	).toBe(true);
	expect(requests[1].query.cursor).not.toBe(requests[2].query.cursor);
});

test('Return All over 1,234 calls takes ceil(1234/100) = 13 requests and outputs each call once, in order', async () => {
	await sandbox.seed({ agents: 4, calls: 1234 });
	const expected = await allCalls(sandbox);
	await sandbox.clearRequests();

	const run = await runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });

	const calls = jsonOf(run);
	expect(calls).toHaveLength(1234);
	expect(new Set(ids(calls)).size).toBe(1234);
	expect(calls).toEqual(expected);
	const requests = await wire(sandbox);
	expect(requests).toHaveLength(13);
	expect(requests.map((request) => request.query.limit)).toEqual(Array(13).fill('100'));
	expect(requests[0].query.cursor).toBeUndefined();
	expect(new Set(requests.slice(1).map((request) => request.query.cursor)).size).toBe(12);
});

test('Return All over agents pages the same way', async () => {
	await sandbox.seed({ agents: 250 });
	await sandbox.clearRequests();

	const run = await runWith(sandbox, { resource: 'agent', operation: 'getMany', returnAll: true });

	const agents = jsonOf(run);
	expect(agents).toHaveLength(250);
	expect(new Set(ids(agents)).size).toBe(250);
	expect((await wire(sandbox)).map((request) => `${request.path} ${request.query.limit}`)).toEqual([
		'/agents 100',
		'/agents 100',
		'/agents 100',
	]);
});
