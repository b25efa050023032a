import { createAgent, listAll, placeCall } from '../support/api.cts';
import { useSandbox } from '../support/sandbox.cts';

const KEY_A = 'key-account-a';
const KEY_B = 'key-account-b';
const sandbox = useSandbox({ apiKeys: [KEY_A, KEY_B] });

const ENDPOINTS: [string, string, Record<string, string>][] = [
	['POST', '/agent', {}],
	['GET', '/agent', { id: 'agt_x' }],
	['PUT', '/agent', {}],
	['DELETE', '/agent', { id: 'agt_x' }],
	['GET', '/agents', {}],
	['POST', '/call', {}],
	['GET', '/call', { id: 'call_x' }],
	['POST', '/call/context', {}],
	['GET', '/calls', {}],
];

/** A JSON body for the methods that carry one. */
const bodyFor = (method: string) => (method === 'POST' || method === 'PUT' ? {} : undefined);

describe('every endpoint answers 401 with an error body', () => {
	test.each(ENDPOINTS)('%s %s without an Authorization header', async (method, path, query) => {
		const { status, body } = await sandbox.api(method, path, {
			key: null,
			query,
			body: bodyFor(method),
		});

		expect(status).toBe(401);
		expect(body).toEqual({
			error: 'Unauthorized',
			message: expect.stringMatching(/Authorization|API key/),
		});
	});

	test.each(ENDPOINTS)('%s %s with an unknown key', async (method, path, query) => {
		const { status, body } = await sandbox.api(method, path, {
			key: 'not-a-key',
			query,
			body: bodyFor(method),
		});

		expect(status).toBe(401);
		expect(body).toEqual({ error: 'Unauthorized', message: 'Invalid API key' });
	});

	test.each([
		['no scheme', KEY_A],
		['another scheme', `Basic ${KEY_A}`],
		['a scheme without key', 'Bearer'],
		['a scheme and spaces', 'Bearer   '],
		['two tokens', `Bearer ${KEY_A} ${KEY_B}`],
	])('GET /agents with a malformed header: %s', async (_label, header) => {
		const { status, body } = await sandbox.api('GET', '/agents', {
			key: null,
			headers: { authorization: header },
		});

		expect(status).toBe(401);
		expect(body.error).toBe('Unauthorized');
	});

	test('the error never echoes the key that was sent', async () => {
		const { body } = await sandbox.api('GET', '/agents', { key: 'secret-guess-123' });

		expect(JSON.stringify(body)).not.toContain('secret-guess-123');
	});
});

test('a known key in "Bearer <key>" is accepted, the scheme in any case', async () => {
	expect((await sandbox.api('GET', '/agents', { key: KEY_A })).status).toBe(200);
	expect(
		(
			await sandbox.api('GET', '/agents', {
				key: null,
				headers: { authorization: `bearer ${KEY_B}` },
			})
		).status,
	).toBe(200);
});

describe('each key is its own account', () => {
	test("another account's agent and call are 404 and absent from its lists", async () => {
		const agent = await createAgent(sandbox, { name: 'Private' }, KEY_A);
		const call = await placeCall(sandbox, agent, {}, KEY_A);

		const asB = { key: KEY_B };
		expect((await sandbox.api('GET', '/agent', { ...asB, query: { id: agent.id } })).status).toBe(
			404,
		);
		expect(
			(await sandbox.api('DELETE', '/agent', { ...asB, query: { id: agent.id } })).status,
		).toBe(404);
		expect((await sandbox.api('GET', '/call', { ...asB, query: { id: call.id } })).status).toBe(
			404,
		);
		const context = await sandbox.api('POST', '/call/context', {
			...asB,
			body: { id: call.id, context: 'hijack' },
		});
		expect(context.status).toBe(404);
		expect(await listAll(sandbox, 'agents', {}, KEY_B)).toEqual([]);
		expect(await listAll(sandbox, 'calls', {}, KEY_B)).toEqual([]);
		expect(await listAll(sandbox, 'calls', { agent_id: agent.id }, KEY_B)).toEqual([]);

		// Nothing B did touched A's data.
		expect(
			(await sandbox.api('GET', '/agent', { key: KEY_A, query: { id: agent.id } })).status,
		).toBe(200);
		expect(
			(await sandbox.api('GET', '/call', { key: KEY_A, query: { id: call.id } })).body.context,
		).toBe('Test call');
	});

	test("an account cannot call from another account's agent number", async () => {
		const agent = await createAgent(sandbox, { name: 'Caller' }, KEY_A);
		const { status, body } = await sandbox.api('POST', '/call', {
			key: KEY_B,
			body: { from: agent.phone_number, to: '+14155550123' },
		});

		expect(status).toBe(400);
		expect(body.message).toMatch(/^from/);
	});

	test('the same agent name in two accounts is two agents', async () => {
		const a = await createAgent(sandbox, { name: 'Shared name' }, KEY_A);
		const b = await createAgent(sandbox, { name: 'Shared name' }, KEY_B);

		expect(b.id).not.toBe(a.id);
		await sandbox.api('POST', '/agent', {
			key: KEY_B,
			body: { name: 'Shared name', voice_id: 'echo' },
		});
		expect(
			(await sandbox.api('GET', '/agent', { key: KEY_A, query: { id: a.id } })).body.voice_id,
		).toBe('');
	});
});
