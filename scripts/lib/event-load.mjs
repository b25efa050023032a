// A load generator for webhook events and a collector that records what workflows report back:
// the same tools for the queue-mode e2e suite and the event throughput benchmark.
// Node built-ins only (Node's fetch is undici).

import http from 'node:http';

/**
 * POSTs each JSON body to `url` (a string, or a function of the body's index), at most
 * `concurrency` requests in flight. Never retries: a lost request shows up as a failure.
 * @returns {Promise<{ statuses: Record<string, number>, failures: string[], ms: number,
 *   answers: Array<{ status: number | string, body: string }> }>}
 */
export async function postConcurrently(url, bodies, { concurrency = 50, timeoutMs = 60_000 } = {}) {
	const answers = new Array(bodies.length);
	let next = 0;
	const started = performance.now();
	async function sender() {
		while (next < bodies.length) {
			const index = next++;
			const target = typeof url === 'function' ? url(index) : url;
			try {
				const response = await fetch(target, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(bodies[index]),
					signal: AbortSignal.timeout(timeoutMs),
				});
				answers[index] = { status: response.status, body: await response.text() };
			} catch (error) {
				answers[index] = { status: error.cause?.code ?? error.name, body: error.message };
			}
		}
	}
	await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, sender));
	const ms = performance.now() - started;
	const statuses = {};
	for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
	const failures = answers
		.map((answer, index) =>
			answer.status === 200 ? undefined : `#${index}: ${answer.status} ${answer.body}`,
		)
		.filter(Boolean);
	return { statuses, failures, ms, answers };
}

/**
 * An HTTP server on 127.0.0.1 that records every JSON body POSTed to it (what a workflow's HTTP
 * Request node reports), with the time it arrived.
 * @returns {Promise<{ url: string, received: Array<{ body: any, at: number }>,
 *   waitForCount: (count: number, timeoutMs?: number) => Promise<void>, close: () => Promise<void> }>}
 */
export async function startCollector() {
	const received = [];
	const server = http.createServer((request, response) => {
		let text = '';
		request.on('data', (chunk) => (text += chunk));
		request.on('end', () => {
			let body;
			try {
				body = JSON.parse(text);
			} catch {
				body = text;
			}
			received.push({ body, at: performance.now() });
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"ok":true}');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${server.address().port}/`;
	return {
		url,
		received,
		async waitForCount(count, timeoutMs = 120_000) {
			const deadline = Date.now() + timeoutMs;
			while (received.length < count) {
				if (Date.now() > deadline) {
					throw new Error(
						`the collector received ${received.length} of ${count} reports in ${timeoutMs} ms`,
					);
				}
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		},
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/**
 * Runs `send(item, index)` for each item at a steady pace, `perSecond` starts a second, without
 * waiting for earlier ones to finish (as a service sends events, whatever the receiver's speed).
 * Resolves with every result, in order, once all have settled.
 */
export async function atPace(items, perSecond, send) {
	const started = performance.now();
	const pending = [];
	for (const [index, item] of items.entries()) {
		const due = started + (index * 1000) / perSecond;
		const wait = due - performance.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
		pending.push(Promise.resolve().then(() => send(item, index)));
	}
	return await Promise.allSettled(pending);
}
