'use strict';

// An n8n external hook file (EXTERNAL_HOOK_FILES) for the benchmark. Around each workflow run it samples
// the JavaScript memory in use (V8 heap and buffers); after the run n8n hands it the whole run, and it
// appends one JSON line to VOICE_AGENT_BENCH_RESULTS: the run's tag (the benchmark posts it to the
// workflow's webhook), what n8n recorded per node (`executionTime`, items output) and the memory the run
// added at its peak. With VOICE_AGENT_BENCH_PROFILE=<folder> it also writes a CPU profile of every run.
// Executions are not saved (EXECUTIONS_DATA_SAVE_ON_SUCCESS=none), so nothing heavy goes to the database.
// With VOICE_AGENT_BENCH_STALLS set it also reports, per run, the longest delay of n8n's event loop (Node's
// own monitor, 10 ms resolution) and the longest and total pause of its garbage collector, so a stall can be
// told from a collection of n8n's heap.

const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');
const v8 = require('node:v8');

const SAMPLE_EVERY_MS = 10;
const inUse = () => {
	const heap = v8.getHeapStatistics();
	return heap.used_heap_size + heap.external_memory;
};

/** The runs under way, by workflow ID (the batch benchmark runs several workflows at once). */
const current = new Map();
let profiles = 0;

function post(session, method) {
	return new Promise((resolve, reject) =>
		session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
	);
}

async function startRun(key) {
	// A collection first, when n8n runs with --expose-gc, so garbage of earlier runs is not counted.
	globalThis.gc?.();
	const run = { baseline: inUse(), peak: 0 };
	run.peak = run.baseline;
	if (process.env.VOICE_AGENT_BENCH_STALLS) {
		run.loopDelay = monitorEventLoopDelay({ resolution: 10 });
		run.loopDelay.enable();
		run.gc = { maxMs: 0, totalMs: 0 };
		run.gcObserver = new PerformanceObserver((list) => {
			for (const entry of list.getEntries()) {
				run.gc.maxMs = Math.max(run.gc.maxMs, entry.duration);
				run.gc.totalMs += entry.duration;
			}
		});
		run.gcObserver.observe({ entryTypes: ['gc'] });
	}
	run.sampler = setInterval(() => {
		run.peak = Math.max(run.peak, inUse());
	}, SAMPLE_EVERY_MS);
	if (process.env.VOICE_AGENT_BENCH_PROFILE && current.size === 0) {
		run.session = new inspector.Session();
		run.session.connect();
		await post(run.session, 'Profiler.enable');
		await post(run.session, 'Profiler.start');
	}
	current.set(key, run);
}

async function finishRun(key, name) {
	const run = current.get(key);
	current.delete(key);
	if (!run) return undefined;
	clearInterval(run.sampler);
	run.peak = Math.max(run.peak, inUse());
	if (run.loopDelay) {
		run.loopDelay.disable();
		run.gcObserver.disconnect();
		run.stalls = {
			loopDelayMaxMs: run.loopDelay.max / 1e6,
			gcMaxMs: run.gc.maxMs,
			gcTotalMs: run.gc.totalMs,
		};
	}
	if (run.session) {
		const { profile } = await post(run.session, 'Profiler.stop');
		run.session.disconnect();
		const file = `${String(++profiles).padStart(3, '0')}-${name.replace(/[^\w-]+/g, '_')}.cpuprofile`;
		fs.writeFileSync(
			path.join(process.env.VOICE_AGENT_BENCH_PROFILE, file),
			JSON.stringify(profile),
		);
	}
	return { memoryMb: (run.peak - run.baseline) / 1024 / 1024, stalls: run.stalls };
}

/** @param {any} run n8n's IRun */
function summary(run) {
	const runData = run?.data?.resultData?.runData ?? {};
	const nodes = {};
	let tag;
	for (const [name, tasks] of Object.entries(runData)) {
		const task = tasks[0] ?? {};
		const items = task.data?.main?.[0] ?? [];
		nodes[name] = { ms: task.executionTime, items: items.length, error: task.error?.message };
		tag ??= items[0]?.json?.body?.benchTag;
	}
	return { tag, status: run?.status, error: run?.data?.resultData?.error?.message, nodes };
}

module.exports = {
	workflow: {
		preExecute: [
			async function (workflow) {
				await startRun(workflow?.id);
			},
		],
		postExecute: [
			async function (run, workflowData) {
				const file = process.env.VOICE_AGENT_BENCH_RESULTS;
				const result = { workflow: workflowData?.name, ...summary(run) };
				const finished = await finishRun(workflowData?.id, workflowData?.name ?? 'workflow');
				result.memoryMb = finished?.memoryMb;
				if (finished?.stalls) result.stalls = finished.stalls;
				if (file) fs.appendFileSync(file, `${JSON.stringify(result)}\n`);
			},
		],
	},
};
