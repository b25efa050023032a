import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { getJson } from './helpers.cts';

const REPO = path.resolve(__dirname, '../..');
const START_LINE = /^Voice Agent sandbox listening on (http:\/\/127\.0\.0\.1:(\d+)\/v1) \((.*)\)$/;

interface Cli {
	child: ChildProcess;
	stdout: string;
	stderr: string;
	exited: Promise<number | null>;
}

/** Runs `node sandbox/cli.js ...args` (what `npm run sandbox -- ...args` runs). */
function runCli(args: string[]): Cli {
	const child = spawn(process.execPath, ['sandbox/cli.js', ...args], {
		cwd: REPO,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const cli: Cli = {
		child,
		stdout: '',
		stderr: '',
		exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
	};
	child.stdout?.on('data', (chunk: Buffer) => (cli.stdout += chunk.toString('utf8')));
	child.stderr?.on('data', (chunk: Buffer) => (cli.stderr += chunk.toString('utf8')));
	return cli;
}

/** The first stdout line, once it is complete. */
async function firstLine(cli: Cli): Promise<string> {
	const deadline = Date.now() + 10_000;
	while (!cli.stdout.includes('\n')) {
		if (Date.now() > deadline || cli.child.exitCode !== null) {
			throw new Error(`no start line; stdout: ${cli.stdout} stderr: ${cli.stderr}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return cli.stdout.split('\n')[0];
}

const running: Cli[] = [];
afterEach(async () => {
	for (const cli of running.splice(0)) {
		if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
		await cli.exited;
	}
});

function start(args: string[]): Cli {
	const cli = runCli(args);
	running.push(cli);
	return cli;
}

test('prints one start line with the real port, serves the seeded account and stops on SIGTERM', async () => {
	const cli = start([
		'--port',
		'0',
		'--api-key',
		'cli-key',
		'--agents',
		'2',
		'--calls',
		'5',
		'--seed',
		'9',
		'--latency-ms',
		'0',
	]);
	const line = await firstLine(cli);

	const [, baseUrl, port, keys] = START_LINE.exec(line) ?? [];
	expect(keys).toBe('API key: cli-key');
	expect(Number(port)).toBeGreaterThan(0);
	expect((await getJson(`${baseUrl}/agents`, 'cli-key')).num_items).toBe(2);
	expect((await getJson(`${baseUrl}/calls`, 'cli-key')).num_items).toBe(5);

	cli.child.kill('SIGTERM');
	expect(await cli.exited).toBe(0);
	expect(cli.stdout).toBe(`${line}\n`);
	expect(cli.stderr).toBe('');
});

test('lists every key, the default one when none is given, and stops on SIGINT', async () => {
	const several = start(['--port', '0', '--api-key', 'a', '--api-key', 'b']);
	expect(START_LINE.exec(await firstLine(several))?.[3]).toBe('API keys: a, b');

	const defaults = start(['--port', '0', '--call-duration-ms', '1000', '--webhook-retry-ms', '10']);
	expect(START_LINE.exec(await firstLine(defaults))?.[3]).toBe('API key: sandbox-key');
	defaults.child.kill('SIGINT');
	expect(await defaults.exited).toBe(0);
});

test('--live-calls seeds calls in progress that last --call-duration-ms', async () => {
	const cli = start([
		'--port',
		'0',
		'--agents',
		'1',
		'--calls',
		'3',
		'--live-calls',
		'2',
		'--call-duration-ms',
		'600000',
	]);
	const [, baseUrl] = START_LINE.exec(await firstLine(cli)) ?? [];

	const { calls } = await getJson(`${baseUrl}/calls`);
	expect(calls.map((call: { status: string }) => call.status)).toEqual([
		'in_progress',
		'in_progress',
		expect.not.stringMatching('in_progress'),
		expect.not.stringMatching('in_progress'),
		expect.not.stringMatching('in_progress'),
	]);
});

test.each([
	[['--port', 'abc'], '--port'],
	[['--port', '70000'], '--port'],
	[['--agents', '-1'], '--agents'],
	[['--calls', '1.5'], '--calls'],
	[['--live-calls', '-1'], '--live-calls'],
	[['--live-calls', '1001'], '--live-calls'],
	[['--latency-ms'], '--latency-ms'],
	[['--api-key', ''], '--api-key'],
	[['--colour', 'blue'], '--colour'],
])('rejects %j with exit code 2 and a message naming the flag', async (args, flag) => {
	const cli = start(args);

	expect(await cli.exited).toBe(2);
	expect(cli.stderr).toContain(flag);
	expect(cli.stderr).toContain('--help');
	expect(cli.stdout).toBe('');
});

test('--help lists the flags and exits 0', async () => {
	const cli = start(['--help']);

	expect(await cli.exited).toBe(0);
	for (const flag of [
		'--port',
		'--host',
		'--api-key',
		'--agents',
		'--calls',
		'--live-calls',
		'--seed',
		'--latency-ms',
		'--call-duration-ms',
		'--webhook-retry-ms',
	]) {
		expect(cli.stdout).toContain(flag);
	}
});

test('a port in use exits 1 with a message', async () => {
	const blocker = http.createServer();
	await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
	try {
		const cli = start(['--port', String((blocker.address() as AddressInfo).port)]);

		expect(await cli.exited).toBe(1);
		expect(cli.stderr).toMatch(/could not start.*EADDRINUSE/);
	} finally {
		await new Promise<void>((resolve) => blocker.close(() => resolve()));
	}
});

test('--profile KEY=live serves that key as the live service runs; the other keys stay documented', async () => {
	const cli = start([
		'--port',
		'0',
		'--api-key',
		'doc',
		'--api-key',
		'live',
		'--profile',
		'live=live',
		'--ring-ms',
		'5000',
		'--webhook-retry-window-ms',
		'30000',
	]);
	const [, baseUrl] = START_LINE.exec(await firstLine(cli)) ?? [];
	const origin = baseUrl.replace(/\/v1$/, '');
	expect(await (await fetch(`${origin}/_sandbox/profiles`)).json()).toEqual({
		accounts: [
			{ account: 0, profile: 'documented' },
			{ account: 1, profile: 'live' },
		],
	});
	expect(await (await fetch(`${origin}/_sandbox/live`)).json()).toEqual({ ring_ms: 5000 });
	const live = await fetch(`${baseUrl}/calls`, { headers: { authorization: 'Bearer live' } });
	expect([live.headers.get('content-type'), await live.text()]).toEqual([
		'text/plain; charset=utf-8',
		'{"num_items":0,"calls":[]}\n',
	]);
	const documented = await getJson(`${baseUrl}/calls`, 'doc');
	expect(typeof documented.calls[0].id).toBe('string');
	expect(typeof documented.calls[0].status).toBe('string');
});

test.each([
	[['--profile', 'sandbox-key=fast'], '--profile'],
	[['--api-key', 'a', '--profile', 'b=live'], '--profile'],
	[['--ring-ms', '-1'], '--ring-ms'],
])('rejects %j with exit code 2 and a message naming the flag', async (args, flag) => {
	const cli = start(args);

	expect(await cli.exited).toBe(2);
	expect(cli.stderr).toContain(flag);
	expect(cli.stdout).toBe('');
});

test('--help lists the live profile flags, the retry window with its default of one minute', async () => {
	const cli = start(['--help']);

	expect(await cli.exited).toBe(0);
	expect(cli.stdout).toContain('--profile KEY=live');
	expect(cli.stdout).toContain('--ring-ms N');
	expect(cli.stdout).toMatch(/--webhook-retry-window-ms N .*\(default 60000\)/);
});
