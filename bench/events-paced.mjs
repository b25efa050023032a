// The rate the Voice Agent Trigger sustains in queue mode, as the service sends: events at a steady
// rate for a while, each answer awaited at most 10 s (the service's timeout), never retried. For one
// or more webhook processors behind the harness's load balancer, with and without Include Call
// Details (which reads the call from the service before answering). Rates are per webhook processor;
// a rate is held when every event was answered 200 within 10 s and ran once. Higher rates are not
// tried once one is not held.
import { atPace } from '../scripts/lib/event-load.mjs';
import { importCredentials, importWorkflows } from '../scripts/lib/n8n-cli.mjs';
import { startQueueCluster } from '../scripts/lib/n8n-queue.mjs';

/** The service's delivery timeout (sandbox/webhooks.js, docs/service.md). */
const SENDER_TIMEOUT_MS = 10_000;
/** Calls that events with details name (cycled; each event has its own timestamp). */
const DETAIL_CALLS = 20;

const VARIANTS = [
	{ key: 'plain', label: 'off', details: false },
	{ key: 'details', label: 'on', details: true },
];

function triggerWorkflow(variant, agentId, credential) {
	return {
		name: `Bench: Voice Agent Trigger, details ${variant.label}`,
		nodes: [
			{
				name: 'Voice Agent Trigger',
				type: 'n8n-nodes-voice-agent.voiceAgentTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: `5b0c2f4e-0101-4c11-9a01-0000000${variant.details ? 'd' : 'p'}be11`,
				parameters: {
					agent: { __rl: true, mode: 'id', value: agentId },
					events: ['call_ended'],
					responseMode: 'onReceived',
					options: variant.details ? { includeCallDetails: true } : {},
				},
				credentials: { voiceAgentApi: credential },
			},
		],
		connections: {},
	};
}

/** One POST as the service makes it: the answer's status and how long it took, or "timeout". */
async function deliver(url, event) {
	const started = performance.now();
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(event),
			signal: AbortSignal.timeout(SENDER_TIMEOUT_MS),
		});
		await response.arrayBuffer();
		return { status: response.status, ms: performance.now() - started };
	} catch (error) {
		const timedOut = error.name === 'TimeoutError';
		return { status: timedOut ? 'timeout' : (error.cause?.code ?? error.name), ms: Infinity };
	}
}

const percentile = (sorted, share) =>
	sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];

/**
 * Sends at each rate (per webhook processor) in turn, for `seconds` each, to each variant; waits for
 * the executions between rates. Returns one row per variant and rate.
 */
export async function runPaced({
	runtime,
	pack,
	api,
	sandbox,
	credential,
	apiKey,
	processors,
	rates,
	seconds,
	settings,
	waitUntilDone,
	log,
}) {
	const agents = {};
	const detailCalls = {};
	for (const variant of VARIANTS) {
		agents[variant.key] = await api.call('POST', '/agent', {
			name: `Bench ${processors}x ${variant.key}`,
			area_code: '415',
		});
	}
	// Calls to read details of, placed before any trigger listens (their events go nowhere).
	detailCalls.details = [];
	for (let index = 0; index < DETAIL_CALLS; index++) {
		const call = await api.call('POST', '/call', {
			from: agents.details.phone_number,
			to: `+1415555${String(1000 + index)}`,
		});
		detailCalls.details.push(call.id);
	}
	const cluster = await startQueueCluster({
		tarball: pack.tarball,
		runtime,
		webhookProcessors: processors,
		extraEnv: settings,
		log,
	});
	const rows = [];
	const live = [];
	try {
		const { main } = cluster;
		await main.setupOwnerAndLogin();
		const options = { runtime, env: cluster.env };
		await importCredentials(
			main.userFolder,
			[
				{
					...credential,
					type: 'voiceAgentApi',
					data: { apiKey, baseUrl: sandbox.baseUrl },
				},
			],
			options,
		);
		const ids = await importWorkflows(
			main.userFolder,
			VARIANTS.map((variant) => triggerWorkflow(variant, agents[variant.key].id, credential)),
			options,
		);
		const urls = {};
		for (const [index, variant] of VARIANTS.entries()) {
			await main.rest.activateWorkflow(ids[index]);
			live.push(ids[index]);
			urls[variant.key] = (await api.call('GET', `/agent?id=${agents[variant.key].id}`)).webhook;
		}
		let serial = 0;
		const eventsFor = (variant, count) =>
			Array.from({ length: count }, () => {
				serial++;
				const callId = variant.details
					? detailCalls.details[serial % DETAIL_CALLS]
					: `call_paced_${serial}`;
				return {
					event_type: 'call_ended',
					call_id: callId,
					// Its own timestamp makes each event distinct (a redelivery repeats the timestamp).
					timestamp: new Date(Date.UTC(2026, 0, 1) + serial).toISOString(),
					data: { status: 'completed', agent_id: agents[variant.key].id },
				};
			});
		const counts = {};
		for (const [index, variant] of VARIANTS.entries()) {
			const warmUp = eventsFor(variant, 20 * processors);
			await atPace(warmUp, 10, (event) => deliver(urls[variant.key], event));
			counts[variant.key] = (await waitUntilDone(main.rest, ids[index], warmUp.length)).count;
		}
		for (const [index, variant] of VARIANTS.entries()) {
			for (const rate of rates) {
				const total = rate * processors;
				const events = eventsFor(variant, total * seconds);
				const results = await atPace(events, total, (event) => deliver(urls[variant.key], event));
				const answers = results.map((result) => result.value);
				const done = await waitUntilDone(
					main.rest,
					ids[index],
					counts[variant.key] + events.length,
				);
				const executed = done.count - counts[variant.key];
				counts[variant.key] = done.count;
				const times = answers
					.filter((answer) => answer.status === 200)
					.map((answer) => answer.ms)
					.sort((a, b) => a - b);
				const statuses = {};
				for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
				const row = {
					processors,
					details: variant.label,
					rate,
					events: events.length,
					answered: times.length,
					p50: percentile(times, 0.5),
					p95: percentile(times, 0.95),
					max: times.at(-1),
					executed,
					statuses,
				};
				row.held = row.answered === row.events && row.executed === row.events;
				rows.push(row);
				log(
					`paced ${processors} processor(s), details ${variant.label}, ${rate}/s each: ` +
						`${row.answered}/${row.events} answered 200 within 10 s, p95 ${Math.round(row.p95 ?? 0)} ms, ` +
						`${executed} executions ${JSON.stringify(statuses)}`,
				);
				if (!row.held) break;
			}
		}
		return rows;
	} finally {
		for (const id of live) await cluster.main.rest.deactivateWorkflow(id).catch(() => {});
		await cluster.stop();
	}
}

const seconds = (ms) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`);

/** Markdown rows for the paced runs. */
export function pacedTable(rows) {
	return [
		'| webhook processors | Include Call Details | events/s per processor | events | answered 200 within 10 s | p50 | p95 | slowest | executions |',
		'|---:|---|---:|---:|---:|---:|---:|---:|---:|',
		...rows.map(
			(row) =>
				`| ${row.processors} | ${row.details} | ${row.rate} | ${row.events} | ${row.answered} | ${seconds(row.p50)} | ${seconds(row.p95)} | ${seconds(row.max)} | ${row.executed} |`,
		),
	];
}
