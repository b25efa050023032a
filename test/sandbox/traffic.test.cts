/**
 * GET /_sandbox/traffic: how clients use their connections to the API (requests, connections, the most
 * requests in flight at once), so a benchmark can show whether a client reuses connections and how many
 * requests it keeps in flight. Control requests are never counted.
 */
import * as http from 'node:http';

import { useSandbox } from '../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: ['traffic-key'], agents: 1 });

/** A GET of the API on the given agent (false: a new connection for this request). */
function get(path: string, agent: http.Agent | false): Promise<number> {
	return new Promise((resolve, reject) => {
		http
			.get(
				`${sandbox.baseUrl}${path}`,
				{ agent, headers: { authorization: 'Bearer traffic-key' } },
				(response) => {
					response.resume();
					response.on('end', () => resolve(response.statusCode ?? 0));
				},
			)
			.on('error', reject);
	});
}

const traffic = async () => (await sandbox.control('GET', '/traffic')).body;

test('starts at zero; control requests are not counted', async () => {
	await sandbox.control('GET', '/requests');
	await sandbox.control('GET', '/faults');

	expect(await traffic()).toEqual({
		api_requests: 0,
		connections: 0,
		tls_sessions_resumed: 0,
		max_in_flight: 0,
	});
});

test('a kept-alive connection counts once; a connection per request counts each time', async () => {
	const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
	try {
		for (let n = 0; n < 4; n++) expect(await get('/agents', keepAlive)).toBe(200);
	} finally {
		keepAlive.destroy();
	}
	for (let n = 0; n < 3; n++) expect(await get('/agents', false)).toBe(200);

	expect(await traffic()).toMatchObject({ api_requests: 7, connections: 4, max_in_flight: 1 });
});

test('counts every API request, refused ones included, and the most in flight at once', async () => {
	await sandbox.faults({ latency_ms: 150 });
	const statuses = await Promise.all([
		get('/agents', false),
		get('/agents', false),
		get('/calls', false),
		get('/calls', false),
		get('/agents', false),
	]);
	expect(await get('/nowhere', false)).toBe(404);

	expect(statuses).toEqual([200, 200, 200, 200, 200]);
	expect(await traffic()).toMatchObject({ api_requests: 6, connections: 6, max_in_flight: 5 });
});

test('DELETE /_sandbox/traffic and POST /_sandbox/reset start the counts again', async () => {
	const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
	try {
		await get('/agents', keepAlive);
		expect((await sandbox.control('DELETE', '/traffic')).body).toEqual({ cleared: true });
		expect(await traffic()).toMatchObject({ api_requests: 0, connections: 0, max_in_flight: 0 });

		// The same connection again: it counts once more after the counts were cleared.
		await get('/agents', keepAlive);
		expect(await traffic()).toMatchObject({ api_requests: 1, connections: 1 });

		await sandbox.reset();
		expect(await traffic()).toMatchObject({ api_requests: 0, connections: 0 });
	} finally {
		keepAlive.destroy();
	}
});
