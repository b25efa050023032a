/**
 * The credential's "Test connection", run as n8n runs it (test/support/credential-test.cts) over real
 * HTTP: it passes only when the Base URL answers like the Voice Agent API and the key is accepted, and
 * says in its result what is wrong otherwise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { testConnection } from '../../support/credential-test.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { useSandbox } from '../../support/sandbox.cts';
import {
	closedPortUrl,
	listen,
	startAnsweringServer,
	type LocalServer,
} from '../../support/servers.cts';

const WRONG_KEY = 'va_wrong_key_Hd83kQz1Lp0';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

const servers: LocalServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server on 127.0.0.1 that is not the service, answering every request the same way. */
async function answering(status: number, contentType: string, body: string): Promise<string> {
	const server = await startAnsweringServer(status, contentType, body);
	servers.push(server);
	return server.origin;
}

const notTheApi = (baseUrl: string, answered: string) =>
	`${baseUrl} does not answer like the Voice Agent API (GET /agents answered ${answered}): ` +
	'set the Base URL to the API address including /v1, e.g. https://api.example.com/v1';

describe('Test connection', () => {
	test('passes for the service with a working key, with or without a trailing slash', async () => {
		for (const baseUrl of [sandbox.baseUrl, `${sandbox.baseUrl}/`]) {
			expect(await testConnection({ apiKey: API_KEY, baseUrl })).toEqual({
				status: 'OK',
				message: 'Connection successful: the Voice Agent API accepted the API key',
			});
		}
	});

	test('fails for a wrong key, saying the key was rejected, without showing it', async () => {
		const result = await testConnection({ apiKey: WRONG_KEY, baseUrl: sandbox.baseUrl });

		expect(result).toEqual({
			status: 'Error',
			message:
				'The Voice Agent API rejected the API key (401 Unauthorized): check the API key of the Voice Agent API credential',
		});
		expect(result.message).not.toContain(WRONG_KEY);
	});

	test("fails for the service's address without /v1", async () => {
		const result = await testConnection({ apiKey: API_KEY, baseUrl: sandbox.origin });

		expect(result).toEqual({
			status: 'Error',
			message: notTheApi(sandbox.origin, '404 Not Found with JSON that is not a list of agents'),
		});
	});

	test('fails for a web page that answers 200, as n8n itself does at its own address', async () => {
		const origin = await answering(200, 'text/html; charset=utf-8', '<!DOCTYPE html><html></html>');

		expect(await testConnection({ apiKey: API_KEY, baseUrl: origin })).toEqual({
			status: 'Error',
			message: notTheApi(origin, '200 OK with an HTML page'),
		});
	});

	test('fails for another JSON API that answers 200', async () => {
		const origin = await answering(200, 'application/json', '{"data": [], "next": null}');

		expect(await testConnection({ apiKey: API_KEY, baseUrl: `${origin}/v1` })).toEqual({
			status: 'Error',
			message: notTheApi(`${origin}/v1`, '200 OK with JSON that is not a list of agents'),
		});
	});

	test('fails clearly when nothing listens at the address', async () => {
		const baseUrl = await closedPortUrl('/v1');

		expect(await testConnection({ apiKey: API_KEY, baseUrl })).toEqual({
			status: 'Error',
			message: `Could not reach ${baseUrl}: the service refused the connection (is the Base URL right and the service up?)`,
		});
	});

	test('fails clearly for a host name that does not exist', async () => {
		const baseUrl = 'http://voice-agent.invalid/v1';

		expect(await testConnection({ apiKey: API_KEY, baseUrl })).toEqual({
			status: 'Error',
			message: `Could not reach ${baseUrl}: the host name of the Base URL could not be resolved`,
		});
	});

	test('fails clearly for a server that never answers, after 10 seconds', async () => {
		const silent = await listen(http.createServer(() => {}));
		servers.push(silent);

		const started = Date.now();
		const result = await testConnection({ apiKey: API_KEY, baseUrl: `${silent.origin}/v1` });

		expect(result).toEqual({
			status: 'Error',
			message: `Could not reach ${silent.origin}/v1: the service did not answer within 10 seconds`,
		});
		expect(Date.now() - started).toBeLessThan(15_000);
	}, 20_000);

	test("fails clearly when the server's TLS certificate is not trusted", async () => {
		const folder = mkdtempSync(path.join(tmpdir(), 'voice-agent-tls-'));
		try {
			execFileSync(
				'openssl',
				[
					'req',
					'-x509',
					'-newkey',
					'rsa:2048',
					'-nodes',
					'-days',
					'1',
					'-subj',
					'/CN=127.0.0.1',
					'-keyout',
					path.join(folder, 'key.pem'),
					'-out',
					path.join(folder, 'cert.pem'),
				],
				{ stdio: 'ignore' },
			);
			const server = https.createServer(
				{
					key: readFileSync(path.join(folder, 'key.pem')),
					cert: readFileSync(path.join(folder, 'cert.pem')),
				},
				(_request, response) => response.end('{"agents": []}'),
			);
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
			servers.push({
				origin: baseUrl,
				close: () => new Promise((resolve) => server.close(() => resolve())),
			});

			expect(await testConnection({ apiKey: API_KEY, baseUrl })).toEqual({
				status: 'Error',
				message: `Could not reach ${baseUrl}: the TLS (HTTPS) connection failed (DEPTH_ZERO_SELF_SIGNED_CERT): check that the Base URL's certificate is valid`,
			});
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	});

	test('fails before sending anything for a Base URL that is no http(s) address, or an empty key', async () => {
		await sandbox.clearRequests();

		expect(await testConnection({ apiKey: API_KEY, baseUrl: 'api.example.com/v1' })).toEqual({
			status: 'Error',
			message:
				'The Base URL is not an http:// or https:// address: set the Base URL to the API address including /v1, e.g. https://api.example.com/v1',
		});
		expect(await testConnection({ apiKey: ' ', baseUrl: sandbox.baseUrl })).toEqual({
			status: 'Error',
			message: 'The API key is empty: paste the API key of your Voice Agent account',
		});
		expect((await sandbox.control('GET', '/requests')).body).toEqual([]);
	});
});
