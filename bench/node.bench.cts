/**
 * Benchmarks of the Voice Agent node inside n8n-core's engine against the sandbox over loopback:
 * - Return All over growing call histories: requests must be ceil(N/100) and time linear in N;
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
const sandbox = useSandbox();
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

/** One run of the node: its time, the items it output and the requests the sandbox received. */
async function timedRun(parameters: INodeParameters) {
	await sandbox.clearRequests();
	const started = process.hrtime.bigint();
	const run = await runWith(sandbox, parameters);
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (run.error) throw run.error;
	return { ms, items: run.items.length, requests: (await sandbox.requests()).length };
}

/** RUNS runs of the node: the median time, and the items and requests of the first run. */
async function measure(parameters: INodeParameters) {
	const runs = [];
	for (let i = 0; i < RUNS; i++) runs.push(await timedRun(parameters));
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
