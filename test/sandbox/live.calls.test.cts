/**
 * The live profile's calls: numeric ids, the call's life (ringing → connected → ended) with the fields and
 * events of each moment, calls that never connect, POST /call's failures (before and after dialling) and
 * POST /call/context.
 */
import { useSandbox } from '../support/sandbox.cts';
import { sleep } from '../support/wait.cts';
import {
	GO_TIME,
	LIVE_CALL_FIELDS,
	ZERO_TIME,
	getLiveCall,
	liveAgent,
	liveCall,
	micros,
	startPlannedReceiver,
	waitForCall,
	type PlannedReceiver,
} from './liveHelpers.cts';

const RING_MS = 300;
const CALL_MS = 600;
const sandbox = useSandbox({ profile: 'live', ringMs: RING_MS, callDurationMs: CALL_MS });
let receiver: PlannedReceiver;

beforeEach(async () => {
	receiver = await startPlannedReceiver();
});
afterEach(() => receiver.close());

describe('a call of a live key lives as the live service runs it', () => {
	test('placed it rings: numeric ids, no status/from/to/duration, zero times, no event', async () => {
		const agent = await liveAgent(sandbox, { name: 'Ringer', webhook: receiver.url });
		const call = await liveCall(sandbox, agent, { to: '+14155550199', context: 'Order 7' });

		expect(Object.keys(call).sort()).toEqual(LIVE_CALL_FIELDS);
		expect(call).toMatchObject({
			agent_id: agent.id,
			user_id: agent.user_id,
			deleted_at: null,
			client_number: '',
			context: 'Order 7',
			in_progress: false,
			started_at: ZERO_TIME,
			ended_at: ZERO_TIME,
			time_seconds: 0,
			sentiment: 0,
			average_latency_ms: 0,
			user_speaks_first: false,
			disconnect_reason: '',
			recording_sid: '',
			transcript: null,
		});
		for (const id of [call.id, call.agent_id, call.user_id])
			expect(Number.isInteger(id)).toBe(true);
		expect(call.twilio_sid).toMatch(/^CA[0-9a-f]{32}$/);
		expect(call.created_at).toMatch(GO_TIME);
		expect(call.updated_at).toBe(call.created_at);
		// Nothing is sent while it rings: its first event is call_started, once it has connected.
		const [started] = await receiver.waitForCount(1);
		const event = JSON.parse(started.text);
		expect(event.event).toBe('call_started');
		expect(micros(event.call.started_at) - micros(call.created_at)).toBeGreaterThanOrEqual(
			RING_MS * 1000 - 2000, // the clock's last millisecond, either side
		);
	});

	test('connected: call_started with the callee; ended: call_ended with the whole conversation', async () => {
		const agent = await liveAgent(sandbox, {
			name: 'Talker',
			webhook: receiver.url,
			system_prompt: 'You confirm orders.',
			initial_message: 'Hello from Northwind.',
		});
		const placed = await liveCall(sandbox, agent, { to: '+14155550123', context: 'Order 48213' });

		await receiver.waitForCount(2);
		// Each event is sent on its own: they are told apart by name, not by the order they came in.
		const bodies = receiver.bodies();
		expect(bodies.map((body) => body.event).sort()).toEqual(['call_ended', 'call_started']);
		const first = bodies.find((body) => body.event === 'call_started');
		const second = bodies.find((body) => body.event === 'call_ended');
		expect(Object.keys(first).sort()).toEqual(['call', 'event']);
		expect(first.call).toMatchObject({
			id: placed.id,
			in_progress: true,
			client_number: '+14155550123',
			ended_at: ZERO_TIME,
			transcript: null,
		});
		expect(first.call.started_at).toMatch(GO_TIME);

		const ended = second.call;
		expect(Object.keys(ended).sort()).toEqual(LIVE_CALL_FIELDS);
		expect(ended).toMatchObject({
			id: placed.id,
			in_progress: false,
			client_number: '+14155550123',
			started_at: first.call.started_at,
			disconnect_reason: 'user_hangup',
		});
		expect(ended.ended_at).toMatch(GO_TIME);
		expect(ended.time_seconds).toBeCloseTo(
			(micros(ended.ended_at) - micros(ended.started_at)) / 1e6,
			6,
		);
		expect(ended.time_seconds).toBeGreaterThanOrEqual(CALL_MS / 1000 - 0.001);
		expect(ended.sentiment).toBeGreaterThanOrEqual(1);
		expect(ended.sentiment).toBeLessThanOrEqual(10);
		expect(ended.recording_sid).toMatch(/^RE[0-9a-f]{32}$/);
		expect(ended.transcript[0]).toEqual({
			role: 'system',
			content: expect.stringMatching(
				/^You confirm orders\.[\s\S]*Extra Context[\s\S]*Order 48213$/,
			),
		});
		expect(ended.transcript[1]).toEqual({ role: 'assistant', content: 'Hello from Northwind.' });
		for (const message of ended.transcript) {
			expect(Object.keys(message).sort()).toEqual(['content', 'role']);
			expect(['system', 'assistant', 'user']).toContain(message.role);
		}
		const roles = ended.transcript.map((message: { role: string }) => message.role).join(' ');
		expect(roles).toContain('user user'); // the user may speak twice in a row
		expect(ended.transcript).toContainEqual({ role: 'assistant', content: '' });
		expect(await getLiveCall(sandbox, placed.id)).toEqual(ended);
	});

	test('a number ending in 0000 never connects: it rings for ever and no event is ever sent', async () => {
		const agent = await liveAgent(sandbox, { name: 'Unanswered', webhook: receiver.url });
		const call = await liveCall(sandbox, agent, { to: '+14155550000' });

		await sleep(RING_MS + CALL_MS + 400);
		expect(await getLiveCall(sandbox, call.id)).toEqual(call);
		expect(receiver.received).toEqual([]);
		expect(await sandbox.deliveries()).toEqual([]);
		// It has no client_number, so the filter by the number called does not find it.
		const listed = await sandbox.api('GET', '/calls', { query: { client_number: '+14155550000' } });
		expect(listed.body).toEqual({ num_items: 0, calls: [] });
		const load = await sandbox.control('GET', '/call-load');
		expect(load.body.accounts[0]).toMatchObject({ in_progress: 1, calls_created: 1 });
	});

	test('freeze: a ringing call never connects, a connected one stays in progress for ever', async () => {
		const agent = await liveAgent(sandbox, { name: 'Frozen', webhook: receiver.url });
		const ringing = await liveCall(sandbox, agent, { to: '+14155550101' });
		expect((await sandbox.control('POST', `/calls/${ringing.id}/freeze`)).status).toBe(200);
		const talking = await liveCall(sandbox, agent, { to: '+14155550000' });
		await sandbox.control('POST', `/calls/${talking.id}/connect`, { call_duration_ms: CALL_MS });
		const frozen = await sandbox.control('POST', `/calls/${talking.id}/freeze`);
		expect(frozen.body).toMatchObject({ id: talking.id, in_progress: true });

		await sleep(RING_MS + CALL_MS + 400);
		expect(await getLiveCall(sandbox, ringing.id)).toEqual(ringing);
		expect(await getLiveCall(sandbox, talking.id)).toEqual(frozen.body);
		expect(receiver.bodies().map((body) => [body.event, body.call.id])).toEqual([
			['call_started', talking.id],
		]);
	});

	test('control: connect a ringing call now, complete it with a reason; 409 when the state is wrong', async () => {
		const agent = await liveAgent(sandbox, { name: 'Steered', webhook: receiver.url });
		const call = await liveCall(sandbox, agent, { to: '+14155550000' });
		const connected = await sandbox.control('POST', `/calls/${call.id}/connect`, {
			call_duration_ms: 3_600_000,
		});
		expect(connected.body).toMatchObject({ in_progress: true, client_number: '+14155550000' });
		expect((await sandbox.control('POST', `/calls/${call.id}/connect`)).status).toBe(409);
		const status = await sandbox.control('POST', `/calls/${call.id}/complete`, {
			status: 'failed',
		});
		expect(status.status).toBe(400);

		const done = await sandbox.control('POST', `/calls/${call.id}/complete`, {
			disconnect_reason: 'agent_hangup',
		});
		expect(done.body).toMatchObject({ in_progress: false, disconnect_reason: 'agent_hangup' });
		expect(done.body.ended_at).toMatch(GO_TIME);
		expect((await sandbox.control('POST', `/calls/${call.id}/complete`)).status).toBe(409);
		expect((await sandbox.control('POST', `/calls/${call.id}/freeze`)).status).toBe(409);
		expect(receiver.bodies().map((body) => body.event)).toEqual(['call_started', 'call_ended']);
	});

	test('complete on a ringing call connects it first: call_started and call_ended both go out', async () => {
		const agent = await liveAgent(sandbox, { name: 'Hurried', webhook: receiver.url });
		const call = await liveCall(sandbox, agent, { to: '+14155550000' });
		const done = await sandbox.control('POST', `/calls/${call.id}/complete`);
		expect(done.body).toMatchObject({ client_number: '+14155550000', in_progress: false });
		await receiver.waitForCount(2);
		expect(
			receiver
				.bodies()
				.map((body) => body.event)
				.sort(),
		).toEqual(['call_ended', 'call_started']);
	});
});

describe('POST /call on a live key', () => {
	test("`from` must be one of the account's agents' numbers, exactly", async () => {
		const agent = await liveAgent(sandbox, { name: 'Caller' });
		for (const from of [agent.phone_number.slice(1), `${agent.phone_number} `, '+10000000000']) {
			const result = await sandbox.api('POST', '/call', { body: { from, to: '+14155550123' } });
			expect([result.status, result.text]).toEqual([400, "Invalid 'from' phone number\n"]);
		}
		expect((await sandbox.api('GET', '/calls')).body.num_items).toBe(0);
	});

	test('a `to` the phone network refuses is a 500 and nothing is placed; any other `to` is dialled', async () => {
		const agent = await liveAgent(sandbox, { name: 'Caller' });
		for (const to of ['', '4155550123', 'not a number', '+0123']) {
			const result = await sandbox.api('POST', '/call', { body: { from: agent.phone_number, to } });
			expect([result.status, result.text]).toEqual([500, 'Failed to make phone call\n']);
		}
		expect((await sandbox.api('GET', '/calls')).body.num_items).toBe(0);
		expect((await sandbox.requests()).some((request) => request.created_call_id)).toBe(false);
		const dialled = await liveCall(sandbox, agent, { to: '+442079460000', context: null });
		expect(dialled.context).toBe('');
	});

	test('a body that does not decode is 400 Invalid request payload', async () => {
		const agent = await liveAgent(sandbox, { name: 'Caller' });
		for (const body of [
			{ from: agent.phone_number, to: 14155550123 },
			{ from: agent.phone_number, to: '+14155550123', user_speaks_first: 'yes' },
			[agent.phone_number],
		]) {
			const result = await sandbox.api('POST', '/call', { body });
			expect([result.status, result.text]).toEqual([400, 'Invalid request payload\n']);
		}
		const raw = await sandbox.api('POST', '/call', { rawBody: '{"from":' });
		expect([raw.status, raw.text]).toEqual([400, 'Invalid request payload\n']);
	});

	test('a 500 "Failed to create call record" comes after the phone is ringing (fault `after`)', async () => {
		const agent = await liveAgent(sandbox, { name: 'Unlucky', webhook: receiver.url });
		await sandbox.faults({ match: 'POST /call', error_rate: 1, when: 'after', times: 1 });
		const result = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});
		expect([result.status, result.text]).toEqual([500, 'Failed to create call record\n']);
		expect(result.headers.get('content-type')).toBe('text/plain; charset=utf-8');

		const placing = (await sandbox.requests()).filter((request) => request.path === '/v1/call');
		expect(placing).toEqual([expect.objectContaining({ status: 500, fault: 'error' })]);
		expect(typeof placing[0].created_call_id).toBe('number');
		const id = Number(placing[0].created_call_id);
		// The call was placed: it rings, then connects like any other.
		await waitForCall(sandbox, id, 'the call to connect', (call) => call.in_progress);
		expect(JSON.parse((await receiver.waitForCount(1))[0].text).call.id).toBe(id);
	});

	test('a 500 before the work is "Failed to make phone call": nothing placed', async () => {
		const agent = await liveAgent(sandbox, { name: 'Refused' });
		await sandbox.faults({ match: 'POST /call', error_rate: 1, times: 1 });
		const result = await sandbox.api('POST', '/call', {
			body: { from: agent.phone_number, to: '+14155550123' },
		});
		expect([result.status, result.text]).toEqual([500, 'Failed to make phone call\n']);
		expect((await sandbox.api('GET', '/calls')).body.num_items).toBe(0);
	});
});

describe('POST /call/context on a live key', () => {
	test('`id` is a number: a string id is 400 Invalid request payload; an unknown id is 404', async () => {
		const agent = await liveAgent(sandbox, { name: 'Context' });
		const call = await liveCall(sandbox, agent);
		const asString = await sandbox.api('POST', '/call/context', {
			body: { id: String(call.id), context: 'New' },
		});
		expect([asString.status, asString.text]).toEqual([400, 'Invalid request payload\n']);
		const unknown = await sandbox.api('POST', '/call/context', {
			body: { id: call.id + 1000, context: 'New' },
		});
		expect([unknown.status, unknown.text]).toEqual([404, 'Call not found\n']);
		const set = await sandbox.api('POST', '/call/context', {
			body: { id: call.id, context: 'New' },
		});
		expect(set.body).toMatchObject({ id: call.id, context: 'New', in_progress: false });
	});

	test('the transcript quotes every context the call had, the latest last', async () => {
		const agent = await liveAgent(sandbox, { name: 'Updates', system_prompt: 'Prompt.' });
		const call = await liveCall(sandbox, agent, { context: 'First', to: '+14155550000' });
		await sandbox.control('POST', `/calls/${call.id}/connect`, { call_duration_ms: 3_600_000 });
		for (const context of ['Second', 'Third']) {
			const set = await sandbox.api('POST', '/call/context', { body: { id: call.id, context } });
			expect(set.body.context).toBe(context);
		}
		const ended = (await sandbox.control('POST', `/calls/${call.id}/complete`)).body;
		const text = ended.transcript.map((message: { content: string }) => message.content).join('\n');
		const at = ['First', 'Second', 'Third'].map((context) => text.indexOf(context));
		expect(at.every((index) => index >= 0)).toBe(true);
		expect(at).toEqual([...at].sort((a, b) => a - b));
		expect(ended.context).toBe('Third');
	});

	test('the context of an ended call can still be set', async () => {
		const agent = await liveAgent(sandbox, { name: 'After' });
		const call = await liveCall(sandbox, agent);
		const ended = (await sandbox.control('POST', `/calls/${call.id}/complete`)).body;
		const set = await sandbox.api('POST', '/call/context', {
			body: { id: call.id, context: 'Too late' },
		});
		expect(set.status).toBe(200);
		expect(set.body).toMatchObject({ id: call.id, context: 'Too late', ended_at: ended.ended_at });
		expect(set.body.transcript).toEqual(ended.transcript);
	});
});
