/**
 * Benchmarks of the Voice Agent node inside n8n-core's engine against the sandbox over loopback:
 * - Return All over growing call histories: requests must be ceil(N/100) and time linear in N;
 * - the same against the live service (the sandbox's live profile), whose cursor loses the calls sharing
 *   a page's last second unless that second is read again: requests and calls asked for, beside the
 *   documented service's, over realistic histories and calls placed 30 a second;
 * - Include Transcripts: how the bounded fan-out of GET /call scales with its concurrency;
 * - the Call History Trigger: one poll over a 20,000-call history, beside a full export of it.
 * Each figure is the median of several runs. Results go to stdout as Markdown tables.
 */
import type { INodeParameters } from 'n8n-workflow';

import { newEndedCalls } from '../test/support/api.cts';
import { runWith } from '../test/support/node.cts';
import { PollHarness } from '../test/trigger/callHistoryTrigger/poll.cts';
import { useSandbox } from '../test/support/sandbox.cts';

const RUNS = 3;
const LIVE_KEY = 'bench-live-key';
const sandbox = useSandbox({ apiKeys: ['bench-key', LIVE_KEY], profiles: { [LIVE_KEY]: 'live' } });
const report: string[] = [];

afterAll(() => {
	process.stdout.write(`\n${report.join('\n')}\n`);
});

/** Starts a Markdown table under a heading (a blank line after the table before it); `header`: "a | b". */
function startTable(title: string, header: string): void {
	const columns = header.split('|').length;
	if (report.length > 0) report.push('');
	report.push(`### ${title}`, '', `| ${header} |`, `|${Array(columns).fill('---:').join('|')}|`);
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

/**
 * One run of the node: its time, the items it output (and how many were distinct), the requests the
 * sandbox received, the calls they asked for (`limit`s summed) and the largest `limit`.
 */
async function timedRun(parameters: INodeParameters, apiKey = sandbox.apiKey) {
	await sandbox.clearRequests();
	const started = process.hrtime.bigint();
	const run = await runWith(sandbox, parameters, { apiKey });
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (run.error) throw run.error;
	const requests = await sandbox.requests();
	const limits = requests.map((request) => Number(request.query.limit ?? 0));
	return {
		ms,
		items: run.items.length,
		distinct: new Set(run.items.map((item) => item.json.id)).size,
		requests: requests.length,
		askedFor: limits.reduce((sum, limit) => sum + limit, 0),
		largestLimit: Math.max(0, ...limits),
	};
}

/** RUNS runs of the node: the median time, and the items and requests of the first run. */
async function measure(parameters: INodeParameters, apiKey?: string) {
	const runs = [];
	for (let i = 0; i < RUNS; i++) runs.push(await timedRun(parameters, apiKey));
	return { ...runs[0], ms: median(runs.map((run) => run.ms)) };
}

test('Call → Get Many, Return All', async () => {
	startTable(
		'Call → Get Many, Return All',
		'calls | requests | ceil(N/100) | median time | per 1,000 calls',
	);
	let seeded = 0;
	for (const calls of [1_000, 5_000, 10_000, 20_000]) {
		await sandbox.seed({ calls: calls - seeded });
		seeded = calls;
		const parameters: INodeParameters = { resource: 'call', operation: 'getMany', returnAll: true };
		await timedRun(parameters); // warm-up
		const { items, requests, ms } = await measure(parameters);
		expect(items).toBe(calls);
		expect(requests).toBe(Math.ceil(calls / 100));
		report.push(
			`| ${calls.toLocaleString('en')} | ${requests} | ${Math.ceil(calls / 100)} | ${ms.toFixed(0)} ms | ${((ms / calls) * 1000).toFixed(1)} ms |`,
		);
	}
});

test('Call → Get Many, Return All, the live service: the seam read again', async () => {
	startTable(
		"Call → Get Many, Return All: the live service (cursor = last call's second) beside the documented one",
		'history | service | calls | output (distinct) | requests | ceil(N/100) | requests vs documented | calls asked for | most ids kept at a seam | median time',
	);
	const parameters: INodeParameters = { resource: 'call', operation: 'getMany', returnAll: true };
	const histories = [
		{ label: 'realistic (30 days)', calls: 20_000 },
		{ label: '30 a second', calls: 20_000, perSecond: 30 },
		{ label: '30 a second', calls: 100_000, perSecond: 30 },
	];
	for (const history of histories) {
		await sandbox.reset();
		const seed = history.perSecond ? { calls_per_second: history.perSecond } : {};
		await sandbox.seed({ calls: history.calls, ...seed });
		await sandbox.seed({ calls: history.calls, api_key: LIVE_KEY, ...seed });
		await timedRun(parameters); // warm-up
		const documented = await measure(parameters);
		const live = await measure(parameters, LIVE_KEY);
		for (const [service, result] of [
			['documented', documented],
			['live', live],
		] as const) {
			expect(result.items).toBe(history.calls);
			expect(result.distinct).toBe(history.calls);
			report.push(
				`| ${history.label} | ${service} | ${history.calls.toLocaleString('en')} | ${result.items.toLocaleString('en')} (${result.distinct.toLocaleString('en')}) | ${result.requests} | ${Math.ceil(history.calls / 100)} | ${((result.requests / documented.requests - 1) * 100).toFixed(1)}% | ${result.askedFor.toLocaleString('en')} | ${Math.max(0, result.largestLimit - 100)} | ${result.ms.toFixed(0)} ms |`,
			);
		}
	}
});

test('Call → Get Many with Include Transcripts, 200 calls, 20 ms per request', async () => {
	await sandbox.seed({ calls: 200 });
	await sandbox.faults({ latency_ms: 20 });
	startTable(
		'Include Transcripts: 200 calls, the service taking 20 ms per request',
		'requests in parallel | requests | median time | vs. one at a time',
	);
	let sequential = 0;
	for (const concurrency of [1, 5, 10, 20]) {
		const parameters: INodeParameters = {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			options: { includeTranscripts: true, transcriptConcurrency: concurrency },
		};
		const { items, requests, ms } = await measure(parameters);
		expect(items).toBe(200);
		expect(requests).toBe(2 + 200);
		if (concurrency === 1) sequential = ms;
		report.push(
			`| ${concurrency} | ${requests} | ${ms.toFixed(0)} ms | ${(sequential / ms).toFixed(1)}× |`,
		);
	}
	await sandbox.faults({});
});

test('Call History Trigger: one poll over 20,000 calls of history with 50 new ended calls, beside the full export', async () => {
	await sandbox.seed({ calls: 20_000 });
	const trigger = await PollHarness.start({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl }, {});
	await trigger.activate();
	startTable(
		'20,000 calls of history, 50 new calls ended: one poll of the Call History Trigger vs. a full export',
		'what | items | requests | time (poll: median of 3)',
	);
	const polls = [];
	for (let run = 0; run < RUNS; run++) {
		await newEndedCalls(sandbox, 50);
		await sandbox.clearRequests();
		const before = trigger.emitted.length;
		const started = process.hrtime.bigint();
		await trigger.poll();
		const ms = Number(process.hrtime.bigint() - started) / 1e6;
		const requests = (await sandbox.requests()).map((request) => request.path);
		expect(trigger.emitted.length - before).toBe(50);
		expect(requests.filter((path) => path === '/v1/calls')).toHaveLength(1);
		expect(requests.filter((path) => path === '/v1/call')).toHaveLength(50);
		polls.push({ ms, requests: requests.length });
	}
	report.push(
		`| Call History Trigger, one poll | 50 | ${polls[0].requests} (1 list page + 50 GET /call) | ${median(polls.map((poll) => poll.ms)).toFixed(0)} ms |`,
	);
	for (const concurrency of [5, 20]) {
		const exported = await timedRun({
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			options: { includeTranscripts: true, transcriptConcurrency: concurrency },
		});
		expect(exported.items).toBe(20_000 + 50 * RUNS);
		report.push(
			`| Get Many, Return All, Include Transcripts (${concurrency} in parallel), one run | ${exported.items.toLocaleString('en')} | ${exported.requests.toLocaleString('en')} | ${(exported.ms / 1000).toFixed(1)} s |`,
		);
	}
});
