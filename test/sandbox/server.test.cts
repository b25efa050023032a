import { once } from 'node:events';
import { connect } from 'node:net';

import { startSandbox } from '../../sandbox/index.js';
import { createAgent, listAll, placeCall } from '../support/api.cts';
import { ISO_TIMESTAMP } from '../support/fixtures.cts';
import { useSandbox } from '../support/sandbox.cts';
import { sleep, waitFor } from '../support/wait.cts';

const ONE_MIB = 1024 * 1024;
const sandbox = useSandbox({ apiKeys: ['first-key', 'second-key'], callDurationMs: 60_000 });

describe('HTTP', () => {
	test('answers JSON', async () => {
		const { headers } = await sandbox.api('GET', '/agents');

		expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
	});

	test('unknown routes are 404 with an error body', async () => {
		for (const path of ['/agentz', '/calls/extra', '']) {
			const { status, body } = await sandbox.api('GET', path);
			expect(status).toBe(404);
			expect(body).toEqual({ error: 'Not Found', message: expect.any(String) });
		}
		const outside = await fetch(`${sandbox.origin}/v2/agents`);
		expect(outside.status).toBe(404);
		expect(await outside.json()).toEqual({
			error: 'Not Found',
			message: expect.stringContaining('/v1'),
		});
	});

	test('a known path with another method is 405 with Allow', async () => {
		const { status, headers, body } = await sandbox.api('PATCH', '/agent', { body: {} });

		expect(status).toBe(405);
		expect(headers.get('allow')).toBe('POST, GET, PUT, DELETE');
		expect(body.error).toBe('Method Not Allowed');
		expect((await sandbox.api('DELETE', '/calls')).status).toBe(405);
	});

	test('a body that is not valid JSON is 400', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', { rawBody: '{"name": "Broken",' });

		expect(status).toBe(400);
		expect(body).toEqual({
			error: 'Bad Request',
			message: expect.stringContaining('not valid JSON'),
		});
	});

	test('a body over 1 MiB is 413; exactly 1 MiB is accepted', async () => {
		const tooLarge = await sandbox.api('POST', '/agent', { rawBody: `"${'x'.repeat(ONE_MIB)}"` });
		expect(tooLarge.status).toBe(413);
		expect(tooLarge.body).toEqual({
			error: 'Payload Too Large',
			message: expect.stringContaining('1 MiB'),
		});

		const envelope = JSON.stringify({ name: 'Big prompt', area_code: '415', system_prompt: '' });
		const prompt = 'p'.repeat(ONE_MIB - Buffer.byteLength(envelope));
		const exact = JSON.stringify({ name: 'Big prompt', area_code: '415', system_prompt: prompt });
		expect(Buffer.byteLength(exact)).toBe(ONE_MIB);
		const accepted = await sandbox.api('POST', '/agent', { rawBody: exact });
		expect(accepted.status).toBe(200);
		expect(accepted.body.system_prompt).toHaveLength(prompt.length);
	});

	test('timestamps are ISO 8601 UTC with milliseconds', async () => {
		const agent = await createAgent(sandbox);
		const call = await placeCall(sandbox, agent);

		for (const value of [agent.created_at, agent.updated_at, call.created_at])
			expect(value).toMatch(ISO_TIMESTAMP);
		expect(Math.abs(Date.parse(call.created_at) - Date.now())).toBeLessThan(60_000);
	});

	test('regression: a connection idle for 6 s still carries a request (Node closed it at 5 s, CI)', async () => {
		// A client reusing a connection the server had just closed met "other side closed" (CI, resetting a suite's
		// sandbox). One connection, two requests 6 s apart: the second is answered on the same socket.
		const url = new URL(sandbox.origin);
		const socket = connect(Number(url.port), url.hostname);
		let received = '';
		socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
		const answers = () => received.match(/HTTP\/1\.1 200/g)?.length ?? 0;
		const ask = () => socket.write(`GET /_sandbox/profiles HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
		await once(socket, 'connect');
		ask();
		await waitFor('the first answer', () => (answers() === 1 ? true : undefined));
		await sleep(6_000);
		expect(socket.readyState).toBe('open');
		ask();
		await waitFor('the second answer', () => (answers() === 2 ? true : undefined));
		socket.destroy();
	}, 20_000);
});

describe('request log (GET /_sandbox/requests)', () => {
	test('records every API request in order, without the Authorization header', async () => {
		await sandbox.api('POST', '/agent', { body: { name: 'Logged', area_code: '415' } });
		await sandbox.api('GET', '/calls', { query: { limit: 5, agent_id: 'agt_x' } });
		await sandbox.api('GET', '/agents', { key: null });
		await sandbox.api('POST', '/agent', { rawBody: 'not json' });
		await sandbox.control('GET', '/faults'); // control requests are not recorded

		const log = await sandbox.requests();
		expect(log).toEqual([
			{
				method: 'POST',
				path: '/v1/agent',
				query: {},
				status: 200,
				body: { name: 'Logged', area_code: '415' },
				at: expect.stringMatching(ISO_TIMESTAMP),
				fault: null,
			},
			{
				method: 'GET',
				path: '/v1/calls',
				query: { limit: '5', agent_id: 'agt_x' },
				status: 200,
				body: null,
				at: expect.stringMatching(ISO_TIMESTAMP),
				fault: null,
			},
			{
				method: 'GET',
				path: '/v1/agents',
				query: {},
				status: 401,
				body: null,
				at: expect.stringMatching(ISO_TIMESTAMP),
				fault: null,
			},
			{
				method: 'POST',
				path: '/v1/agent',
				query: {},
				status: 400,
				body: null,
				at: expect.stringMatching(ISO_TIMESTAMP),
				fault: null,
			},
		]);
		expect(JSON.stringify(log)).not.toContain('first-key');
		expect(JSON.stringify(log).toLowerCase()).not.toContain('bearer');
	});

	test('DELETE clears it', async () => {
		await sandbox.api('GET', '/agents');
		await sandbox.clearRequests();

		expect(await sandbox.requests()).toEqual([]);
	});
});

describe('POST /_sandbox/reset', () => {
	test('empties every account and the logs', async () => {
		const agent = await createAgent(sandbox, { name: 'Gone' });
		const call = await placeCall(sandbox, agent);
		await createAgent(sandbox, { name: 'Gone too' }, 'second-key');

		const { status, body } = await sandbox.control('POST', '/reset');

		expect(status).toBe(200);
		expect(body).toEqual({ reset: true });
		expect(await sandbox.requests()).toEqual([]);
		expect(await sandbox.deliveries()).toEqual([]);
		expect(await listAll(sandbox, 'agents')).toEqual([]);
		expect(await listAll(sandbox, 'agents', {}, 'second-key')).toEqual([]);
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).status).toBe(404);
	});
});

describe('startSandbox', () => {
	test('answers origin, baseUrl, port and keys, and close() stops it', async () => {
		const lines: string[] = [];
		const started = await startSandbox({
			port: 0,
			apiKeys: ['k1', 'k2'],
			log: (line) => lines.push(line),
		});

		expect(started.baseUrl).toBe(`${started.origin}/v1`);
		expect(started.origin).toBe(`http://127.0.0.1:${started.port}`);
		expect(started.apiKeys).toEqual(['k1', 'k2']);
		expect(started.certificate).toBeUndefined();
		expect(lines).toEqual([
			`Voice Agent sandbox listening on ${started.baseUrl} (API keys: k1, k2)`,
		]);
		await started.close();
		await started.close();
		await expect(fetch(`${started.baseUrl}/agents`)).rejects.toThrow();
	});

	test('rejects bad options with a message naming them', async () => {
		await expect(startSandbox({ port: -1 })).rejects.toThrow(/port/);
		await expect(startSandbox({ apiKeys: [] })).rejects.toThrow(/apiKeys/);
		await expect(startSandbox({ callDurationMs: 0 })).rejects.toThrow(/callDurationMs/);
		await expect(startSandbox({ tls: 'yes' as unknown as boolean })).rejects.toThrow(/tls/);
	});
});
