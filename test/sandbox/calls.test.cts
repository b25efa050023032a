import { createAgent, placeCall } from '../support/api.cts';
import { ISO_TIMESTAMP, transcriptText } from '../support/fixtures.cts';
import { useSandbox } from '../support/sandbox.cts';
import { waitFor } from '../support/wait.cts';
import { CALL_CONTEXT_FIELDS, CALL_FIELDS, CALL_LIST_FIELDS } from './helpers.cts';

// Calls last a minute unless a test completes them, so no call ends while a test looks at it.
const sandbox = useSandbox({ callDurationMs: 60_000 });
let agent: any;

beforeEach(async () => {
	agent = await createAgent(sandbox, { name: 'Caller', initial_message: 'Hello from the clinic.' });
});

describe('POST /call', () => {
	test('starts a call in progress and answers it in the GET /call shape', async () => {
		const { status, body } = await sandbox.api('POST', '/call', {
			body: {
				from: agent.phone_number,
				to: '+447700900123',
				context: 'Appointment on Tuesday',
				user_speaks_first: true,
			},
		});

		expect(status).toBe(200);
		expect(Object.keys(body).sort()).toEqual(CALL_FIELDS);
		expect(body).toEqual({
			id: expect.any(String),
			agent_id: agent.id,
			from: agent.phone_number,
			to: '+447700900123',
			context: 'Appointment on Tuesday',
			status: 'in_progress',
			created_at: expect.stringMatching(ISO_TIMESTAMP),
			ended_at: null,
			duration: null,
			transcript: [],
		});
		expect((await sandbox.api('GET', '/call', { query: { id: body.id } })).body).toEqual(body);
	});

	test('context and user_speaks_first are optional', async () => {
		const { status, body } = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});

		expect(status).toBe(200);
		expect(body.context).toBe('');
	});

	test.each<[string, Record<string, unknown>, string]>([
		['from is missing', { from: undefined }, 'from'],
		['from is not E.164', { from: '4155550123' }, 'from'],
		['from is no agent of the account', { from: '+14155550999' }, 'from'],
		['to is missing', { to: undefined }, 'to'],
		['to is not E.164', { to: '+0123456789' }, 'to'],
		['to is too short', { to: '+123456' }, 'to'],
		['to is a number', { to: 14155550123 }, 'to'],
		['context is not a string', { context: 5 }, 'context'],
		['user_speaks_first is not a boolean', { user_speaks_first: 'yes' }, 'user_speaks_first'],
	])('answers 400 naming the field when %s', async (_label, fields, field) => {
		const { status, body } = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123', ...fields },
		});

		expect(status).toBe(400);
		expect(body.error).toBe('Bad Request');
		expect(body.message.startsWith(field)).toBe(true);
		expect((await sandbox.api('GET', '/calls')).body.num_items).toBe(0);
	});

	test('answers 400 for a body that is not an object', async () => {
		expect((await sandbox.api('POST', '/call', { body: [agent.phone_number] })).status).toBe(400);
		expect((await sandbox.api('POST', '/call')).status).toBe(400);
	});

	test('lists the call with client_number = to', async () => {
		const call = await placeCall(sandbox, agent, { to: '+4915112345678', context: 'Listed' });
		const { body } = await sandbox.api('GET', '/calls');

		expect(body.calls).toHaveLength(1);
		expect(Object.keys(body.calls[0]).sort()).toEqual(CALL_LIST_FIELDS);
		expect(body.calls[0]).toEqual({
			id: call.id,
			agent_id: agent.id,
			client_number: '+4915112345678',
			context: 'Listed',
			status: 'in_progress',
			created_at: call.created_at,
		});
	});
});

describe('POST /call takes null as "not given"', () => {
	test('context null is empty and user_speaks_first null is false: the agent speaks first', async () => {
		const { status, body } = await sandbox.api('POST', '/call', {
			body: {
				from: agent.phone_number,
				to: '+14155550123',
				context: null,
				user_speaks_first: null,
			},
		});

		expect(status).toBe(200);
		expect(body).toMatchObject({ context: '', status: 'in_progress' });
		const ended = await sandbox.control('POST', `/calls/${body.id}/complete`);
		expect(ended.body.transcript[0]).toEqual({ speaker: 'agent', text: 'Hello from the clinic.' });
	});

	test('user_speaks_first true lets the customer speak first (what null does not)', async () => {
		const call = await placeCall(sandbox, agent, { user_speaks_first: true });
		const ended = await sandbox.control('POST', `/calls/${call.id}/complete`);

		expect(ended.body.transcript[0].speaker).toBe('customer');
	});

	test.each(['from', 'to'])('%s null is a 400 naming it; no call is placed', async (field) => {
		const { status, body } = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123', [field]: null },
		});

		expect(status).toBe(400);
		expect(body).toEqual({ error: 'Bad Request', message: `${field} is required` });
		expect((await sandbox.api('GET', '/calls')).body.num_items).toBe(0);
	});
});

describe('GET /call', () => {
	test('answers 400 without id and 404 for an unknown id', async () => {
		const missing = await sandbox.api('GET', '/call');
		expect(missing.status).toBe(400);
		expect(missing.body).toEqual({ error: 'Bad Request', message: expect.stringMatching(/^id/) });

		const unknown = await sandbox.api('GET', '/call', { query: { id: 'call_0000' } });
		expect(unknown.status).toBe(404);
		expect(unknown.body).toEqual({
			error: 'Not Found',
			message: expect.stringContaining('call_0000'),
		});
	});
});

describe('POST /call/context', () => {
	test('replaces the context of a call in progress and answers the call with updated_at', async () => {
		const call = await placeCall(sandbox, agent, { context: 'Original' });
		const { status, body } = await sandbox.api('POST', '/call/context', {
			body: { id: call.id, context: 'Moved to 3 pm' },
		});

		expect(status).toBe(200);
		expect(Object.keys(body).sort()).toEqual(CALL_CONTEXT_FIELDS);
		expect(body).toEqual({
			id: call.id,
			agent_id: agent.id,
			from: call.from,
			to: call.to,
			context: 'Moved to 3 pm',
			status: 'in_progress',
			created_at: call.created_at,
			updated_at: expect.stringMatching(ISO_TIMESTAMP),
		});
		expect(body.updated_at >= call.created_at).toBe(true);
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).body.context).toBe(
			'Moved to 3 pm',
		);
	});

	test('the latest context reaches the call: the transcript mentions it', async () => {
		const call = await placeCall(sandbox, agent, { context: 'Order 1 ships today' });
		await sandbox.api('POST', '/call/context', {
			body: { id: call.id, context: 'Order 1 is delayed until Friday' },
		});

		const completed = await sandbox.control('POST', `/calls/${call.id}/complete`);
		expect(completed.status).toBe(200);

		const { body } = await sandbox.api('GET', '/call', { query: { id: call.id } });
		expect(body.status).toBe('completed');
		expect(transcriptText(body)).toContain('Order 1 is delayed until Friday');
		expect(body.context).toBe('Order 1 is delayed until Friday');
	});

	test('answers 400 once the call has ended', async () => {
		const call = await placeCall(sandbox, agent);
		await sandbox.control('POST', `/calls/${call.id}/complete`);

		const { status, body } = await sandbox.api('POST', '/call/context', {
			body: { id: call.id, context: 'Too late' },
		});

		expect(status).toBe(400);
		expect(body.message).toMatch(/in_progress/);
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).body.context).toBe(
			'Test call',
		);
	});

	test.each<[string, Record<string, unknown>, RegExp]>([
		['id is missing', { context: 'x' }, /^id/],
		['id is not a string', { id: 5, context: 'x' }, /^id/],
		['context is missing', { id: 'call_x' }, /^context/],
		['id is null', { id: null, context: 'x' }, /^id is required/],
		['context is null', { id: 'call_x', context: null }, /^context is required/],
		['context is not a string', { id: 'call_x', context: { text: 'x' } }, /^context/],
	])('answers 400 when %s', async (_label, body, message) => {
		const result = await sandbox.api('POST', '/call/context', { body });

		expect(result.status).toBe(400);
		expect(result.body.message).toMatch(message);
	});

	test('answers 404 for an unknown call', async () => {
		const { status, body } = await sandbox.api('POST', '/call/context', {
			body: { id: 'call_missing', context: 'x' },
		});

		expect(status).toBe(404);
		expect(body.error).toBe('Not Found');
	});
});

describe('POST /_sandbox/calls/{id}/complete', () => {
	test('ends a call as completed with ended_at, duration and a transcript of agent and customer lines', async () => {
		const call = await placeCall(sandbox, agent, { context: 'Check-up on Friday' });
		const { status, body } = await sandbox.control('POST', `/calls/${call.id}/complete`, {
			status: 'completed',
		});

		expect(status).toBe(200);
		expect(body).toMatchObject({
			id: call.id,
			status: 'completed',
			ended_at: expect.stringMatching(ISO_TIMESTAMP),
		});
		expect(body.ended_at >= call.created_at).toBe(true);
		expect(body.duration).toEqual(expect.any(Number));
		expect(body.duration).toBeGreaterThanOrEqual(0);
		expect(body.transcript.length).toBeGreaterThan(2);
		for (const entry of body.transcript) {
			expect(entry).toEqual({
				speaker: expect.stringMatching(/^(agent|customer)$/),
				text: expect.any(String),
			});
		}
		expect(body.transcript[0]).toEqual({ speaker: 'agent', text: 'Hello from the clinic.' });
		expect(transcriptText(body)).toContain('Check-up on Friday');
		expect((await sandbox.api('GET', '/call', { query: { id: call.id } })).body).toEqual(body);
	});

	test('ends a call as failed: no transcript, duration 0', async () => {
		const call = await placeCall(sandbox, agent);
		const { body } = await sandbox.control('POST', `/calls/${call.id}/complete`, {
			status: 'failed',
		});

		expect(body).toMatchObject({
			status: 'failed',
			transcript: [],
			duration: 0,
			ended_at: expect.stringMatching(ISO_TIMESTAMP),
		});
	});

	test('answers 409 for a call that has ended, 404 for an unknown call, 400 for a status a call cannot end with', async () => {
		const call = await placeCall(sandbox, agent);
		expect(
			(await sandbox.control('POST', `/calls/${call.id}/complete`, { status: 'in_progress' }))
				.status,
		).toBe(400);
		await sandbox.control('POST', `/calls/${call.id}/complete`);

		const again = await sandbox.control('POST', `/calls/${call.id}/complete`);
		expect(again.status).toBe(409);
		expect(again.body.error).toBe('Conflict');
		expect((await sandbox.control('POST', '/calls/call_nope/complete')).status).toBe(404);
	});
});

describe('calls end by themselves after callDurationMs', () => {
	// Not reset between tests: they share the agent.
	const quick = useSandbox({ callDurationMs: 150 }, { reset: false });
	let quickAgent: any;

	beforeAll(async () => {
		quickAgent = await createAgent(quick, { name: 'Quick' });
	});

	async function waitUntilEnded(id: string) {
		return waitFor(`call ${id} to end`, async () => {
			const { body } = await quick.api('GET', '/call', { query: { id } });
			return body.status === 'in_progress' ? undefined : body;
		});
	}

	test('a call completes with a transcript that mentions its context', async () => {
		const call = await placeCall(quick, quickAgent, { context: 'Table for two at 8' });
		const ended = await waitUntilEnded(call.id);

		expect(ended).toMatchObject({
			status: 'completed',
			ended_at: expect.stringMatching(ISO_TIMESTAMP),
		});
		expect(ended.duration).toBeGreaterThan(0);
		expect(transcriptText(ended)).toContain('Table for two at 8');
	});

	test('a call to a number ending in 0000 fails', async () => {
		const call = await placeCall(quick, quickAgent, { to: '+14155550000' });
		const ended = await waitUntilEnded(call.id);

		expect(ended).toMatchObject({ status: 'failed', transcript: [], duration: 0 });
	});
});
