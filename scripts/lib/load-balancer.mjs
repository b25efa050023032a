// A small round-robin HTTP load balancer on 127.0.0.1, in front of n8n's webhook processors, as teams
// put one (nginx, a cloud load balancer) in front of theirs: each request goes whole to the next
// upstream in turn; an upstream that cannot be reached gets the request answered 502 (no retry: a
// webhook may have run). Counts what each upstream was sent. Node built-ins only.

import http from 'node:http';

/** Headers without the hop-by-hop ones, which concern each connection, not the message. */
function endToEnd(headers) {
	const kept = { ...headers };
	delete kept.connection;
	delete kept['keep-alive'];
	return kept;
}

/**
 * @param {string[]} upstreams base URLs, e.g. `http://127.0.0.1:5679`
 * @returns {Promise<{ url: string, sent: number[], close: () => Promise<void> }>}
 */
export async function startLoadBalancer(upstreams) {
	if (!upstreams.length) throw new Error('a load balancer needs at least one upstream');
	const targets = upstreams.map((upstream) => new URL(upstream));
	// A new connection to the upstream for each request, as nginx makes by default: a kept-alive one
	// may be closed by the upstream's idle timeout just as it is reused (ECONNRESET, answered 502).
	const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
	const sent = targets.map(() => 0);
	let next = 0;
	const server = http.createServer((request, response) => {
		const index = next;
		next = (next + 1) % targets.length;
		sent[index]++;
		const target = targets[index];
		const forwarded = http.request(
			{
				agent,
				host: target.hostname,
				port: target.port,
				method: request.method,
				path: request.url,
				headers: {
					...endToEnd(request.headers),
					connection: 'close',
					host: request.headers.host ?? target.host,
					'x-forwarded-for': request.socket.remoteAddress ?? '',
				},
			},
			(answer) => {
				response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
				answer.pipe(response);
			},
		);
		forwarded.on('error', (error) => {
			if (response.headersSent) {
				response.destroy(error);
				return;
			}
			response.writeHead(502, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ error: 'Bad Gateway', message: error.message }));
		});
		// The caller gave up (its timeout): the upstream's work goes on, as behind a real balancer.
		request.pipe(forwarded);
	});
	server.keepAliveTimeout = 5000;
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		sent,
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
				agent.destroy();
			}),
	};
}
