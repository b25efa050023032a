/**
 * The API key goes to the Base URL's origin only, run in n8n's engine over real HTTP: a Base URL that
 * redirects elsewhere fails, naming where it pointed, and the other origin receives nothing; a Base URL
 * with credentials, a query or a fragment is refused before anything is sent.
 */
import { testConnection } from '../../support/credential-test.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { runWith } from '../../support/node.cts';
import { createAgent, wire, wireLines } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import {
	startRecordingServer,
	startRedirectingServer,
	type LocalServer,
	type RecordingServer,
} from '../../support/servers.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

const servers: LocalServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The other origin, and a Base URL whose server redirects every request to it with `status`. */
async function redirectingBaseUrl(status: number) {
	const other = await startRecordingServer();
	const redirecting = await startRedirectingServer(
		status,
		`${other.origin}/v1/agents?token=secret-in-query`,
	);
	servers.push(other, redirecting);
	return { other, redirecting, baseUrl: `${redirecting.origin}/v1` };
}

const HINT = 'set the Base URL to the API address including /v1, e.g. https://api.example.com/v1';

function expectNothingArrived(other: RecordingServer): void {
	expect(other.authorizations).toEqual([]);
	expect(other.requests).toEqual([]);
}

describe('a Base URL that redirects to another origin', () => {
	test.each([307, 302, 308, 301])(
		'%i on Agent → Get Many: the item fails naming the Location without its query; nothing reaches the other origin',
		async (status) => {
			const { other, redirecting, baseUrl } = await redirectingBaseUrl(status);

			const run = await runWith(
				sandbox,
				{ resource: 'agent', operation: 'getMany', returnAll: true },
				{ baseUrl },
			);

			expect(run.items).toEqual([]);
			expect(run.error?.message).toBe(
				`The Base URL answered GET /agents with a redirect (${status}) to ${other.origin}/v1/agents: redirects are not followed, so the API key was not sent there; ${HINT}`,
			);
			expect(run.error?.message).not.toContain('secret-in-query');
			// Asked once, not repeated.
			expect(redirecting.requests).toEqual(['GET /v1/agents?limit=100']);
			expectNothingArrived(other);
		},
	);

	test('307 on POST /call (Call → Create): the call is not sent on, nor repeated', async () => {
		const agent = await createAgent(sandbox);
		const other = await startRecordingServer();
		const redirecting = await startRedirectingServer(307, `${other.origin}/v1/call`, {
			only: 'POST',
			passTo: sandbox.origin,
		});
		servers.push(other, redirecting);

		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'create', from: rl(agent.id), to: '+14155550123' },
			{ baseUrl: `${redirecting.origin}/v1` },
		);

		expect(run.error?.message).toBe(
			`The Base URL answered POST /call with a redirect (307) to ${other.origin}/v1/call: redirects are not followed, so the API key was not sent there; ${HINT}`,
		);
		expect(redirecting.requests.filter((line) => line.startsWith('POST'))).toEqual([
			'POST /v1/call',
		]);
		expectNothingArrived(other);
		// The sandbox placed no call: it saw the test's agent, the node's look-up of it and the recent
		// calls Create remembers before dialling, no POST /call.
		expect(await wireLines(sandbox)).toEqual([
			'POST /agent 200',
			'GET /agent 200',
			'GET /calls 200',
		]);
	});

	test("a relative Location is named on the Base URL's origin", async () => {
		const redirecting = await startRedirectingServer(302, '/login?next=%2Fv1');
		servers.push(redirecting);

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'getMany', returnAll: true },
			{ baseUrl: `${redirecting.origin}/v1` },
		);

		expect(run.error?.message).toBe(
			`The Base URL answered GET /agents with a redirect (302) to ${redirecting.origin}/login: redirects are not followed, so the API key was not sent there; ${HINT}`,
		);
		expect(redirecting.requests).toEqual(['GET /v1/agents?limit=100']);
	});

	test('Test connection fails the same way; nothing reaches the other origin', async () => {
		const { other, redirecting, baseUrl } = await redirectingBaseUrl(307);

		expect(await testConnection({ apiKey: API_KEY, baseUrl })).toEqual({
			status: 'Error',
			message: `${baseUrl} answered GET /agents with a redirect (307) to ${other.origin}/v1/agents: redirects are not followed, so the API key was not sent there; ${HINT}`,
		});
		expect(redirecting.requests).toEqual(['GET /v1/agents?limit=1']);
		expectNothingArrived(other);
	});
});

describe('a Base URL that could send the key elsewhere is refused before anything is sent', () => {
	test.each([
		[
			'a user name and password',
			(origin: string) => origin.replace('http://', 'http://user:pass@'),
			'must not contain a user name or password (user:password@): the API key goes in the API Key field',
		],
		[
			'a query',
			(origin: string) => `${origin}/v1?tenant=a`,
			'must not contain a query (?...): the nodes add their own',
		],
		['a fragment', (origin: string) => `${origin}/v1#top`, 'must not contain a fragment (#...)'],
	])('%s: the node and Test connection say so', async (_what, baseUrlOf, problem) => {
		const baseUrl = baseUrlOf(sandbox.origin);

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'getMany', returnAll: true },
			{ baseUrl },
		);
		expect(run.error?.message).toBe(
			`The Voice Agent API credential's Base URL ${problem}; ${HINT}`,
		);
		expect(await testConnection({ apiKey: API_KEY, baseUrl })).toEqual({
			status: 'Error',
			message: `The Base URL ${problem}; ${HINT}`,
		});
		expect(await wire(sandbox)).toEqual([]);
	});

	test('a Base URL of a megabyte is refused at once, by its length', async () => {
		const baseUrl = `${sandbox.baseUrl}/${'a'.repeat(1_048_576)}`;

		const started = Date.now();
		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'getMany', returnAll: true },
			{ baseUrl },
		);

		expect(Date.now() - started).toBeLessThan(5_000);
		expect(run.error?.message).toBe(
			`The Voice Agent API credential's Base URL is longer than 2,048 characters; ${HINT}`,
		);
		expect(await wire(sandbox)).toEqual([]);
	});
});

describe('Webhook URL (Agent → Create or Update)', () => {
	test('a megabyte of URL fails at once, naming the field and the item, before anything is sent', async () => {
		const webhook = `https://example.com/${'a'.repeat(1_048_576)} `;

		const started = Date.now();
		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Front Desk',
			areaCode: '415',
			additionalFields: { webhook },
		});

		expect(Date.now() - started).toBeLessThan(5_000);
		expect(run.error?.message).toBe(
			'Webhook URL must be at most 2,048 characters (got 1,048,596) [item 0]',
		);
		expect(await wire(sandbox)).toEqual([]);
	});
});
