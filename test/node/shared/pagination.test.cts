/**
 * Paging through the service's lists: changes while paging, several items, a cursor that repeats and
 * 20,000 calls; run in n8n's engine.
 */
import { allCalls, createAgent, placeCall, wire } from '../../support/api.cts';
import { API_KEY, ids } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { startRepeatingCursorServer } from '../../support/servers.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

test('calls placed while the node pages: none of the older calls is duplicated or missed', async () => {
	await sandbox.seed({ agents: 2, calls: 1000 });
	const older = await allCalls(sandbox);
	const agent = await createAgent(sandbox, { name: 'Busy Line' });
	await sandbox.clearRequests();
	// Every page takes a while, so calls are placed between the node's requests.
	await sandbox.faults({ latency_ms: 100, match: 'GET /calls' });

	const running = runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });
	const placed: string[] = [];
	for (let page = 1; page <= 6; page++) {
		await waitFor(`page ${page}`, async () =>
			(await wire(sandbox)).filter((request) => request.path === '/calls').length >= page
				? true
				: undefined,
		);
		for (let n = 0; n < 3; n++)
			placed.push(
				(
					await placeCall(sandbox, agent, {
						to: `+1415555${page}${n}00`,
						context: `New ${page}.${n}`,
					})
				).id,
			);
	}
	const run = await running;

	const calls = jsonOf(run);
	expect(new Set(ids(calls)).size).toBe(calls.length);
	const olderIds = new Set(ids(older));
	expect(ids(calls).filter((id) => olderIds.has(id))).toEqual(ids(older));
	expect(
		ids(calls)
			.filter((id) => !olderIds.has(id))
			.every((id) => placed.includes(id)),
	).toBe(true);
	const log = (await wire(sandbox)).map(
		(request) => `${request.method} ${request.path} ${request.status}`,
	);
	expect(log.filter((line) => line === 'GET /calls 200')).toHaveLength(10);
	// The calls were placed while the node was still paging: its last page was served after them.
	expect(log.lastIndexOf('POST /call 200')).toBeLessThan(log.lastIndexOf('GET /calls 200'));
	expect(log.indexOf('POST /call 200')).toBeGreaterThan(log.indexOf('GET /calls 200'));
	// The calls placed during the run were really there: the account now holds all of them.
	expect(await allCalls(sandbox)).toHaveLength(1000 + placed.length);
});

test('two input items page independently, each output paired with its item', async () => {
	await sandbox.seed({ agents: 2, calls: 300 });
	const expected = await allCalls(sandbox);
	await sandbox.clearRequests();

	const run = await runWith(
		sandbox,
		{ resource: 'call', operation: 'getMany', returnAll: false, limit: '={{ $json.limit }}' },
		{ input: [{ limit: 150 }, { limit: 30 }] },
	);

	const calls = jsonOf(run);
	expect(calls).toEqual([...expected.slice(0, 150), ...expected.slice(0, 30)]);
	expect(run.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual([
		...Array(150).fill(0),
		...Array(30).fill(1),
	]);
	expect((await wire(sandbox)).map((request) => request.query.limit)).toEqual(['100', '50', '30']);
});

test('a service that repeats a cursor fails clearly instead of looping', async () => {
	const server = await startRepeatingCursorServer();
	try {
		const started = Date.now();
		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'getMany', returnAll: true },
			{ baseUrl: `${server.origin}/v1` },
		);

		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			'The Voice Agent API repeated a pagination cursor for GET /calls; stopped after 2 items instead of looping',
		);
		expect(server.requests).toEqual([
			'GET /v1/calls?limit=100',
			'GET /v1/calls?limit=100&cursor=c_same',
		]);
		expect(Date.now() - started).toBeLessThan(5_000);
		// Give a looping client the chance to show itself.
		await sleep(100);
		expect(server.requests).toHaveLength(2);
	} finally {
		await server.close();
	}
});

test('performance: Return All over 20,000 calls takes exactly 200 requests and outputs 20,000 unique calls in order', async () => {
	await sandbox.seed({ agents: 5, calls: 20_000 });
	const expected = ids(await allCalls(sandbox));
	await sandbox.clearRequests();

	const started = performance.now();
	const run = await runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });
	const elapsedMs = Math.round(performance.now() - started);

	const calls = jsonOf(run);
	expect(calls).toHaveLength(20_000);
	expect(new Set(ids(calls)).size).toBe(20_000);
	expect(ids(calls)).toEqual(expected);
	const requests = await wire(sandbox);
	expect(requests).toHaveLength(200);
	expect(
		requests.every(
			(request) =>
				request.path === '/calls' && request.query.limit === '100' && request.status === 200,
		),
	).toBe(true);
	// The credential is read and decrypted once for the run, not once per page.
	expect(run.credentialReads).toBe(1);
	expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	console.log(`Return All over 20,000 calls: ${requests.length} requests in ${elapsedMs} ms`);
}, 60_000);
