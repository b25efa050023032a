// The benchmark's side of the sandbox's control endpoints (/_sandbox), over HTTP or HTTPS (trusting the
// sandbox's own certificate): seeding, faults, and what the sandbox saw during one run.
import http from 'node:http';
import https from 'node:https';

/** A control request (path relative to /_sandbox); resolves to the parsed answer. */
export function control(sandbox, method, urlPath, body) {
	const url = new URL(`${sandbox.origin}/_sandbox${urlPath}`);
	const client = url.protocol === 'https:' ? https : http;
	const payload = body === undefined ? undefined : JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const request = client.request(
			url,
			{
				method,
				ca: sandbox.certificate,
				headers: payload ? { 'content-type': 'application/json' } : {},
			},
			(response) => {
				const chunks = [];
				response.on('data', (chunk) => chunks.push(chunk));
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					if (response.statusCode !== 200) {
						reject(new Error(`${method} /_sandbox${urlPath}: ${response.statusCode} ${text}`));
					} else resolve(JSON.parse(text));
				});
			},
		);
		request.on('error', reject);
		request.end(payload);
	});
}

/** What the sandbox saw since `clearTraffic`: API requests, 429s, connections, most requests in flight. */
export async function traffic(sandbox) {
	const counts = await control(sandbox, 'GET', '/traffic');
	const requests = await control(sandbox, 'GET', '/requests');
	return {
		requests: counts.api_requests,
		connections: counts.connections,
		maxInFlight: counts.max_in_flight,
		rateLimited: requests.filter((request) => request.status === 429).length,
	};
}

export async function clearTraffic(sandbox) {
	await control(sandbox, 'DELETE', '/traffic');
	await control(sandbox, 'DELETE', '/requests');
}
