// The floor: the same jobs as plain `fetch` loops in a bare Node process (the Node that runs n8n), with
// nothing between the code and the HTTP client. Started once by the benchmark; it reads one job per line on
// stdin and answers one JSON line on stdout:
//   {"job":"list","baseUrl":"...","apiKey":"...","limit":50}            one page (limit) or every page
//   {"job":"transcripts","baseUrl":"...","apiKey":"...","concurrency":20} every page, then GET /call per call
// Answer: {"ms", "items", "memoryMb"}; a 429 is waited out as its Retry-After says, then tried again.
import readline from 'node:readline';
import v8 from 'node:v8';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function getJson(url, apiKey) {
	for (;;) {
		const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
		if (response.status === 429) {
			await response.arrayBuffer();
			await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
			continue;
		}
		if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
		return await response.json();
	}
}

async function listCalls({ baseUrl, apiKey, limit }) {
	const calls = [];
	let cursor;
	do {
		const query = new URLSearchParams({ limit: String(limit ?? 100) });
		if (cursor) query.set('cursor', cursor);
		const page = await getJson(`${baseUrl}/calls?${query}`, apiKey);
		for (const call of page.calls) calls.push(call);
		cursor = limit === undefined ? page.cursor : undefined;
	} while (cursor);
	return calls;
}

/** Every call in full, `concurrency` requests at a time (a fixed pool). */
async function transcripts(job) {
	const calls = await listCalls(job);
	const full = new Array(calls.length);
	let next = 0;
	const worker = async () => {
		while (next < calls.length) {
			const index = next++;
			full[index] = await getJson(`${job.baseUrl}/call?id=${calls[index].id}`, job.apiKey);
		}
	};
	await Promise.all(Array.from({ length: job.concurrency }, worker));
	return full;
}

const inUse = () => {
	const heap = v8.getHeapStatistics();
	return heap.used_heap_size + heap.external_memory;
};

const jobs = { list: listCalls, transcripts };
for await (const line of readline.createInterface({ input: process.stdin })) {
	const job = JSON.parse(line);
	// Memory as the n8n hook measures it: JavaScript heap and buffers above the start, sampled.
	globalThis.gc?.();
	const baseline = inUse();
	let peak = baseline;
	const sampler = setInterval(() => (peak = Math.max(peak, inUse())), 10);
	const started = performance.now();
	const items = await jobs[job.job](job);
	const ms = performance.now() - started;
	clearInterval(sampler);
	const memoryMb = (Math.max(peak, inUse()) - baseline) / 1024 / 1024;
	process.stdout.write(`${JSON.stringify({ ms, items: items.length, memoryMb })}\n`);
}
