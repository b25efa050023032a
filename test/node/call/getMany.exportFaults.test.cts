/**
 * Call → Get Many with Include Transcripts (the export) under transient faults of the service, in n8n's
 * engine over real HTTP: retries ride out short outages, one call's failure never discards the others,
 * and what still fails is reported per call.
 */
import { STATUS_CODES } from 'node:http';

import { allCalls, wire } from '../../support/api.cts';
import { jsonOf, runWith, type NodeRun } from '../../support/node.cts';
import { startInterceptingProxy, type InterceptingProxy } from '../../support/proxy.cts';
import { useSandbox, type TestSandbox } from '../../support/sandbox.cts';
import { sleep, waitFor } from '../../support/wait.cts';

const EXPORT = {
	resource: 'call',
	operation: 'getMany',
	returnAll: true,
	options: { includeTranscripts: true },
};

/** The export with the most transcript requests in parallel, as a user sets it for a large history. */
const FAST_EXPORT = { ...EXPORT, options: { includeTranscripts: true, transcriptConcurrency: 20 } };

/** Checks that the export output exactly these calls, each once and in full, in the list's order. */
function expectFullExport(run: NodeRun, listed: any[]): void {
	const exported = jsonOf(run);
	expect(exported.map((call) => call.id)).toEqual(listed.map((call) => call.id));
	expect(new Set(exported.map((call) => call.id)).size).toBe(listed.length);
	const withTranscript = exported.filter(
		(call) => Array.isArray(call.transcript) && typeof call.ended_at === 'string',
	);
	expect(withTranscript).toHaveLength(listed.length);
}

/** How many requests the sandbox answered 429 so far (asked at most five times a second). */
async function rateLimited(sandbox: TestSandbox): Promise<number> {
	await sleep(200);
	return (await sandbox.requests()).filter((request) => request.status === 429).length;
}

/** Waits until the sandbox spent the `times` of its fault settings: that many matching requests came. */
async function faultsSpent(sandbox: TestSandbox): Promise<void> {
	await waitFor(
		'the requests the faults were set for',
		async () =>
			(await sandbox.control('GET', '/faults')).body.times_remaining === 0 ? true : undefined,
		120_000,
	);
}

describe('a 2,000-call export under 10% server errors, 5% connection resets and a rate limit', () => {
	const sandbox = useSandbox({}, { reset: false });
	const RANDOM_FAULTS = { error_rate: 0.1, reset_rate: 0.05 };
	let listed: any[];

	beforeAll(async () => {
		await sandbox.seed({ calls: 2_000 });
		listed = await allCalls(sandbox);
	});

	test.each(Array.from({ length: 10 }, (_, index) => index + 1))(
		'run %i of 10: exactly the 2,000 calls, each with its transcript',
		async () => {
			await sandbox.clearRequests();
			// Random faults on every request; after the first 700, a rate limit of 10 requests a second,
			// far below what the export asks for on any machine, until it has answered five 429s.
			await sandbox.faults({ ...RANDOM_FAULTS, times: 700 });
			const running = runWith(sandbox, FAST_EXPORT);
			await faultsSpent(sandbox);
			await sandbox.faults({ ...RANDOM_FAULTS, rate_limit_per_s: 10 });
			await waitFor(
				'five 429 answers of the rate limit',
				async () => ((await rateLimited(sandbox)) >= 5 ? true : undefined),
				60_000,
			);
			await sandbox.faults(RANDOM_FAULTS);
			const run = await running;
			await sandbox.faults({});

			expectFullExport(run, listed);
			const statuses = (await wire(sandbox)).map((request) => request.status);
			// The faults were there: the run rode them out.
			expect(statuses.filter((status) => status === 500).length).toBeGreaterThan(100);
			expect(statuses.filter((status) => status === null).length).toBeGreaterThan(50);
			expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
		},
		120_000,
	);
});

describe('an outage in the middle of an export', () => {
	const sandbox = useSandbox();

	test('20 consecutive 500s on GET /call after 300 calls were fetched: the export completes', async () => {
		await sandbox.seed({ calls: 2_000 });
		const listed = await allCalls(sandbox);
		await sandbox.clearRequests();

		// 1 ms more on the first 300 GET /call: only to know when they have come.
		await sandbox.faults({ latency_ms: 1, match: 'GET /call', times: 300 });
		const running = runWith(sandbox, EXPORT);
		await faultsSpent(sandbox);
		await sandbox.faults({ error_rate: 1, match: 'GET /call', times: 20 });
		const run = await running;

		expectFullExport(run, listed);
		const lines = (await wire(sandbox)).map((r) => `${r.method} ${r.path} ${r.status}`);
		const first500 = lines.indexOf('GET /call 500');
		expect(first500).toBeGreaterThan(300);
		expect(lines.filter((line) => line === 'GET /call 500')).toHaveLength(20);
		// Consecutive: the 20 failed answers came one after the other, before any success.
		expect(lines.slice(first500, first500 + 20)).toEqual(Array(20).fill('GET /call 500'));
	}, 60_000);
});

describe('calls that cannot be fetched', () => {
	const sandbox = useSandbox();
	let proxy: InterceptingProxy | undefined;
	let listed: any[];
	let broken: string[];

	beforeEach(async () => {
		await sandbox.seed({ calls: 40 });
		listed = await allCalls(sandbox);
		broken = [listed[3].id, listed[17].id];
	});
	afterEach(async () => {
		await proxy?.close();
		proxy = undefined;
	});

	/** The export through a proxy that answers GET /call of the given calls with `status`. */
	async function exportFailing(failing: string[], status: number, continueOnFail: boolean) {
		const error = { error: STATUS_CODES[status], message: `Failed by the test proxy (${status})` };
		proxy = await startInterceptingProxy(sandbox.origin, (route, _earlier, url) =>
			route === 'GET /call' && failing.includes(url.searchParams.get('id') ?? '')
				? { answer: { status, body: error } }
				: undefined,
		);
		return await runWith(sandbox, EXPORT, { baseUrl: `${proxy.origin}/v1`, continueOnFail });
	}

	test('without On Error: Continue: the node fails, saying how many calls failed and why', async () => {
		const result = await exportFailing(broken, 400, false);

		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			'2 of 40 calls could not be fetched in full: The Voice Agent API rejected the request: Failed by the test proxy (400) (2 calls)',
		);
		expect(result.error?.description).toBe(
			`Not fetched: ${broken.join(', ')}. With "On Error: Continue" the node outputs the calls it fetched and an error item for each of these.`,
		);
	});

	test('with On Error: Continue: every call it got, then an error item naming each call it could not fetch', async () => {
		const result = await exportFailing(broken, 404, true);

		const output = jsonOf(result);
		const fetched = listed.filter((call) => !broken.includes(call.id));
		expect(output.slice(0, 38).map((call) => call.id)).toEqual(fetched.map((call) => call.id));
		expect(output.slice(0, 38).every((call) => Array.isArray(call.transcript))).toBe(true);
		expect(output.slice(38)).toEqual(
			broken.map((id) => ({ error: `Call "${id}" was not found`, call_id: id })),
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual(Array(40).fill({ item: 0 }));
	});

	test('a call whose GET /call answers 503 through every retry and the later pass: reported, the others output', async () => {
		const result = await exportFailing([broken[0]], 503, true);

		const output = jsonOf(result);
		expect(output).toHaveLength(40);
		expect(output[39]).toEqual({
			error:
				'The Voice Agent service failed to process GET /call (503): Failed by the test proxy (503)',
			call_id: broken[0],
		});
	}, 60_000);
});
