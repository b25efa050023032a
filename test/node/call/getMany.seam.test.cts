/**
 * Call → Get Many over calls placed several a second, in n8n's engine, against both services the sandbox
 * plays. The live service's cursor is the last call's second, and its next page holds only older calls, so
 * the calls sharing that second are never served (issue 39: Return All gave 219 of 250). The node reads the
 * seam's second again and drops what it already output, by id.
 */
import { wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { everyCall, PROFILES, textId } from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { startSamePageServer } from '../../support/servers.cts';

const idsOf = (calls: { id: unknown }[]) => calls.map((call) => textId(call.id));

describe.each(PROFILES)('the %s service', (profile) => {
	const sandbox = useSandbox({ apiKeys: [API_KEY], profile });

	test('Return All over 250 calls placed 30 a second: every call once, newest first, in ceil(250/100) requests', async () => {
		await sandbox.seed({ calls: 250, calls_per_second: 30 });
		const expected = idsOf(await everyCall(sandbox, profile));
		expect(expected).toHaveLength(250);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });

		expect(run.error).toBeUndefined();
		expect(idsOf(jsonOf(run))).toEqual(expected);
		const pages = await wire(sandbox);
		expect(pages.map((request) => `${request.path} ${request.status}`)).toEqual(
			Array(3).fill('/calls 200'),
		);
		if (profile === 'documented') {
			expect(pages.map((request) => request.query.limit)).toEqual(['100', '100', '100']);
			return;
		}
		// Each page after the first asks from the second after the last call's, and for the calls of that
		// second it already output besides 100 (the live service has no maximum).
		const [first, ...after] = pages;
		expect(first.query).toEqual({ limit: '100' });
		for (const request of after) {
			expect(request.query.cursor).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
			expect(Number(request.query.limit)).toBeGreaterThan(100);
			expect(Number(request.query.limit)).toBeLessThanOrEqual(100 + 30);
		}
	});

	test('a Limit across a seam: the newest 150, each once', async () => {
		await sandbox.seed({ calls: 250, calls_per_second: 30 });
		const expected = idsOf(await everyCall(sandbox, profile)).slice(0, 150);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: false,
			limit: 150,
		});

		expect(idsOf(jsonOf(run))).toEqual(expected);
		expect(await wire(sandbox)).toHaveLength(2);
	});

	test('more calls in one second than a page (250 calls in a quarter of a second): every call once, no false loop', async () => {
		await sandbox.seed({ calls: 250, calls_per_second: 1000 });
		const expected = idsOf(await everyCall(sandbox, profile));
		await sandbox.clearRequests();

		const run = await runWith(sandbox, { resource: 'call', operation: 'getMany', returnAll: true });

		expect(run.error).toBeUndefined();
		expect(idsOf(jsonOf(run))).toEqual(expected);
		const limits = (await wire(sandbox)).map((request) => Number(request.query.limit));
		expect(limits).toHaveLength(3);
		// The page after a second longer than a page asks for all of that second's calls output so far
		// again (they are dropped) and 100 more.
		if (profile === 'live') expect(Math.max(...limits)).toBeLessThanOrEqual(250 + 100);
	});
});

describe('a service whose cursor is a time and that serves the same page whatever it is asked', () => {
	const sandbox = useSandbox({ apiKeys: [API_KEY] });

	test('calls of one second only: a loop, stopped on the second request', async () => {
		const server = await startSamePageServer([
			{ id: 5002, created_at: '2026-05-16T21:32:38.9Z' },
			{ id: 5001, created_at: '2026-05-16T21:32:38.2Z' },
		]);
		try {
			const run = await runWith(
				sandbox,
				{ resource: 'call', operation: 'getMany', returnAll: true },
				{ baseUrl: `${server.origin}/v1` },
			);

			expect(run.error?.message).toBe(
				'The Voice Agent API repeated a pagination cursor for GET /calls; stopped after 2 items instead of looping',
			);
			expect(server.requests).toEqual([
				'GET /v1/calls?limit=100',
				'GET /v1/calls?limit=102&cursor=2026-05-16T21%3A32%3A39Z',
			]);
		} finally {
			await server.close();
		}
	});

	test('calls of later seconds served again: refused, never output twice', async () => {
		const server = await startSamePageServer([
			{ id: 5003, created_at: '2026-05-16T21:32:45.5Z' },
			{ id: 5001, created_at: '2026-05-16T21:32:38.2Z' },
		]);
		try {
			const run = await runWith(
				sandbox,
				{ resource: 'call', operation: 'getMany', returnAll: true },
				{ baseUrl: `${server.origin}/v1` },
			);

			expect(run.error?.message).toBe(
				'GET /calls answered calls created after its cursor (2026-05-16T21:32:39Z): stopped after 2 items rather than output one twice',
			);
			expect(server.requests).toHaveLength(2);
		} finally {
			await server.close();
		}
	});
});
