/**
 * The sandbox behind TLS (`tls: true`, `--tls`): HTTPS with a self-signed certificate made at start, which
 * clients trust the way they would a real CA's (the `ca` option, NODE_EXTRA_CA_CERTS), and the counts of
 * connections and resumed TLS sessions that show whether a client reuses its connections.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import type { TLSSocket } from 'node:tls';

import { selfSignedCertificate } from '../../sandbox/certificate.js';
import { startSandbox } from '../../sandbox/index.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

const REPO = path.resolve(__dirname, '../..');
const KEY = 'tls-key';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, apiKeys: [KEY], agents: 1, calls: 3, tls: true });
});
afterAll(async () => {
	await sandbox.close();
});

interface Answer {
	status: number;
	body: any;
	session?: Buffer;
	resumed: boolean;
}

/** A request over HTTPS; `trusted: false` trusts only the system's CAs, not the sandbox's certificate. */
function request(
	url: string,
	{
		method = 'GET',
		trusted = true,
		ca = trusted ? sandbox.certificate : undefined,
		agent,
		session,
		key = KEY,
	}: {
		method?: string;
		trusted?: boolean;
		ca?: string;
		agent?: https.Agent | false;
		session?: Buffer;
		key?: string;
	} = {},
): Promise<Answer> {
	// `session` goes on to tls.connect when there is no agent: how a client resumes a TLS session.
	const options: https.RequestOptions & { session?: Buffer } = {
		method,
		ca,
		agent,
		session,
		headers: { authorization: `Bearer ${key}` },
	};
	return new Promise((resolve, reject) => {
		const sent = https.request(url, options, (response) => {
			const socket = response.socket as TLSSocket;
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => {
				resolve({
					status: response.statusCode ?? 0,
					body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
					session: socket.getSession(),
					resumed: socket.isSessionReused(),
				});
			});
		});
		sent.on('error', reject);
		sent.end();
	});
}

const traffic = async () => (await request(`${sandbox.origin}/_sandbox/traffic`)).body;
const clearTraffic = () => request(`${sandbox.origin}/_sandbox/traffic`, { method: 'DELETE' });

test('serves the API over HTTPS to a client that trusts its certificate', async () => {
	expect(sandbox.origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
	expect(sandbox.baseUrl).toBe(`${sandbox.origin}/v1`);

	const { status, body } = await request(`${sandbox.baseUrl}/calls?limit=2`);

	expect(status).toBe(200);
	expect(body.calls).toHaveLength(2);
	expect(body.cursor).toEqual(expect.any(String));
});

test('a client that does not trust the certificate is refused by its own TLS check', async () => {
	await expect(
		request(`${sandbox.baseUrl}/calls`, { trusted: false, agent: false }),
	).rejects.toThrow(/self-signed certificate/);
});

test('the certificate is self-signed, current, and names localhost, 127.0.0.1 and ::1', () => {
	const certificate = new X509Certificate(sandbox.certificate ?? '');

	expect(certificate.verify(certificate.publicKey)).toBe(true);
	expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
	expect(certificate.checkIP('::1')).toBe('::1');
	expect(certificate.checkHost('localhost')).toBe('localhost');
	expect(certificate.checkHost('example.com')).toBeUndefined();
	expect(Date.parse(certificate.validFrom)).toBeLessThan(Date.now());
	expect(Date.parse(certificate.validTo)).toBeGreaterThan(Date.now() + 30 * 24 * 3600 * 1000);
	expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
});

// A regression: one serial in 256 started with a zero byte the DER encoding kept, which OpenSSL refuses as
// "illegal padding", so one start of the sandbox in 256 with --tls failed. 2,000 certificates would hit it
// about eight times.
test('every certificate it makes is valid DER: 2,000 in a row all parse', () => {
	const failures: string[] = [];
	for (let n = 0; n < 2_000; n++) {
		const { cert } = selfSignedCertificate(['localhost', '127.0.0.1']);
		try {
			new X509Certificate(cert);
		} catch (error) {
			failures.push((error as Error).message);
		}
	}
	expect(failures).toEqual([]);
});

test('each sandbox makes its own key and certificate', async () => {
	const other = await startSandbox({ port: 0, apiKeys: [KEY], agents: 0, calls: 0, tls: true });
	try {
		expect(other.certificate).not.toBe(sandbox.certificate);
		await expect(
			request(`${other.baseUrl}/agents`, { ca: sandbox.certificate, agent: false }),
		).rejects.toThrow(/self-signed certificate/);
		expect((await request(`${other.baseUrl}/agents`, { ca: other.certificate })).status).toBe(200);
	} finally {
		await other.close();
	}
});

test('traffic counts connections and resumed TLS sessions of API requests', async () => {
	await clearTraffic();
	// A new connection per request, with a full handshake each time.
	const first = await request(`${sandbox.baseUrl}/agents`, { agent: false });
	await request(`${sandbox.baseUrl}/agents`, { agent: false });
	// A new connection that resumes the first one's session: no full handshake.
	const resumed = await request(`${sandbox.baseUrl}/agents`, {
		agent: false,
		session: first.session,
	});
	// One kept-alive connection for three requests.
	const keepAlive = new https.Agent({ keepAlive: true, maxSockets: 1, ca: sandbox.certificate });
	try {
		for (let n = 0; n < 3; n++) await request(`${sandbox.baseUrl}/agents`, { agent: keepAlive });
	} finally {
		keepAlive.destroy();
	}

	expect(resumed.resumed).toBe(true);
	expect(await traffic()).toEqual({
		api_requests: 6,
		connections: 4,
		tls_sessions_resumed: 1,
		max_in_flight: 1,
	});
});

test('npm run sandbox -- --tls prints the HTTPS address and a certificate file to trust', async () => {
	const child = spawn(
		process.execPath,
		['sandbox/cli.js', '--tls', '--port', '0', '--api-key', KEY],
		{
			cwd: REPO,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
	const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
	try {
		// Two complete lines: the start line and the certificate's (a busy machine may take a while to start Node).
		const deadline = Date.now() + 25_000;
		while (stdout.split('\n').length < 3 && child.exitCode === null && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		const [start, certificateLine] = stdout.split('\n');
		const baseUrl = /listening on (https:\/\/127\.0\.0\.1:\d+\/v1) /.exec(start)?.[1];
		const file = /^TLS certificate: (\S+) \(trust it, e\.g\. NODE_EXTRA_CA_CERTS=\1\)$/.exec(
			certificateLine,
		)?.[1];
		expect(baseUrl).toBeDefined();
		expect(file).toBeDefined();
		const ca = fs.readFileSync(file as string, 'utf8');
		expect((await request(`${baseUrl}/agents`, { ca, agent: false })).status).toBe(200);

		child.kill('SIGTERM');
		expect(await exited).toBe(0);
		// The certificate's folder goes with the sandbox.
		expect(fs.existsSync(path.dirname(file as string))).toBe(false);
	} finally {
		if (child.exitCode === null) child.kill('SIGKILL');
	}
}, 40_000);
