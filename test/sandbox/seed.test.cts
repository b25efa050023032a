import { startSandbox } from '../../sandbox/index.js';
import { createAgent, listAll } from '../support/api.cts';
import { ISO_TIMESTAMP } from '../support/fixtures.cts';
import { useSandbox } from '../support/sandbox.cts';
import { startReceiver, type WebhookReceiver } from '../support/servers.cts';
import { sleep, waitFor } from '../support/wait.cts';
import { getJson } from './helpers.cts';

const sandbox = useSandbox({ apiKeys: ['first-key', 'second-key'], callDurationMs: 60_000 });

/** POST /_sandbox/seed, which must answer 200: its summary. */
async function seed(body: Record<string, unknown>) {
	const { status, body: summary } = await sandbox.control('POST', '/seed', body);
	expect({ status, summary }).toMatchObject({ status: 200 });
	return summary;
}

/** A call as GET /call answers it, once it is no longer in progress. */
async function whenEnded(id: string) {
	return waitFor(`call ${id} to end`, async () => {
		const { body } = await sandbox.api('GET', '/call', { query: { id } });
		return body.status === 'in_progress' ? undefined : body;
	});
}

describe('POST /_sandbox/seed', () => {
	test('creates agents and calls for the first key; calls spread over the agents', async () => {
		expect(await sandbox.seed({ agents: 3, calls: 40 })).toEqual({
			agents_created: 3,
			calls_created: 40,
			live_calls_created: 0,
		});

		const agents = await listAll(sandbox, 'agents');
		const calls = await listAll(sandbox, 'calls', { limit: 100 });
		expect(agents).toHaveLength(3);
		expect(calls).toHaveLength(40);
		expect(new Set(calls.map((call) => call.agent_id))).toEqual(
			new Set(agents.map((agent) => agent.id)),
		);
		expect(await listAll(sandbox, 'agents', {}, 'second-key')).toEqual([]);
	});

	test('seeded data looks like a real history', async () => {
		await sandbox.seed({ agents: 5, calls: 60 });
		const agents = await listAll(sandbox, 'agents');
		const calls = await listAll(sandbox, 'calls', { limit: 100 });

		expect(new Set(agents.map((agent) => agent.name)).size).toBe(5);
		expect(new Set(agents.map((agent) => agent.voice_id)).size).toBeGreaterThan(1);
		for (const agent of agents) expect(agent.phone_number).toMatch(/^\+1\d{10}$/);
		const statuses = new Set(calls.map((call) => call.status));
		expect(statuses).toEqual(new Set(['completed', 'failed']));
		const clientNumbers = calls.map((call) => call.client_number);
		for (const number of clientNumbers) expect(number).toMatch(/^\+[1-9]\d{6,14}$/);
		expect(new Set(clientNumbers).size).toBeLessThan(calls.length);
		const days = new Set(calls.map((call) => call.created_at.slice(0, 10)));
		expect(days.size).toBeGreaterThan(5);
		for (const call of calls) expect(Date.parse(call.created_at)).toBeLessThan(Date.now());

		const completed = calls.find((call) => call.status === 'completed' && call.context !== '');
		const { body } = await sandbox.api('GET', '/call', { query: { id: completed.id } });
		expect(body.transcript.length).toBeGreaterThan(2);
		expect(body.transcript.map((entry: { text: string }) => entry.text).join(' ')).toContain(
			completed.context,
		);
		expect(body.duration).toBeGreaterThan(0);
		expect(body.ended_at >= body.created_at).toBe(true);
	});

	test('another key, and one agent created when calls need one', async () => {
		expect(await sandbox.seed({ calls: 5, api_key: 'second-key' })).toEqual({
			agents_created: 1,
			calls_created: 5,
			live_calls_created: 0,
		});

		expect(await listAll(sandbox, 'agents', {}, 'second-key')).toHaveLength(1);
		expect(await listAll(sandbox, 'calls', {}, 'second-key')).toHaveLength(5);
		expect(await listAll(sandbox, 'calls')).toEqual([]);
	});

	test.each<[string, unknown]>([
		['agents', { agents: -1 }],
		['agents', { agents: 1.5 }],
		['calls', { calls: 'many' }],
		['calls', { calls: 10_000_000 }],
		['api_key', { api_key: 'unknown-key' }],
		['live_calls', { live_calls: -1 }],
		['live_calls', { live_calls: 2.5 }],
		['live_calls', { live_calls: 'two' }],
		['live_calls', { live_calls: 1001 }],
		['call_duration_ms', { live_calls: 1, call_duration_ms: 0 }],
		['call_duration_ms', { live_calls: 1, call_duration_ms: 'long' }],
		['call_duration_ms', { live_calls: 1, call_duration_ms: 86_400_001 }],
	])('answers 400 naming %s for nonsense', async (field, body) => {
		const { status, body: answer } = await sandbox.control('POST', '/seed', body);

		expect(status).toBe(400);
		expect(answer.message).toMatch(new RegExp(`^${field}`));
	});

	test('null counts as not given', async () => {
		const { status, body } = await sandbox.control('POST', '/seed', {
			agents: 2,
			calls: null,
			live_calls: null,
			call_duration_ms: null,
			api_key: null,
		});

		expect(status).toBe(200);
		expect(body).toEqual({ agents_created: 2, calls_created: 0, live_calls_created: 0 });
		expect(await listAll(sandbox, 'agents')).toHaveLength(2);
	});
});

describe('start-up seed', () => {
	function withoutTimes(items: Record<string, unknown>[]) {
		return items.map(({ created_at: _created, updated_at: _updated, ...rest }) => rest);
	}

	async function snapshot(options: { seed?: number }) {
		const started = await startSandbox({ port: 0, ...options });
		try {
			const agents = await getJson(`${started.baseUrl}/agents?limit=100`);
			const calls = await getJson(`${started.baseUrl}/calls?limit=100`);
			return { agents: withoutTimes(agents.agents), calls: withoutTimes(calls.calls) };
		} finally {
			await started.close();
		}
	}

	test('by default 3 agents and 12 calls for the key "sandbox-key", one agent with an older model', async () => {
		const data = await snapshot({});

		expect(data.agents).toHaveLength(3);
		expect(data.calls).toHaveLength(12);
		expect(data.calls.filter((call) => call.status === 'in_progress')).toEqual([]);
		expect(data.agents.map((agent) => agent.llm_model)).toContain('gpt-3.5-turbo');
	});

	test('the same seed gives the same data, another seed other data', async () => {
		const first = await snapshot({ seed: 42 });
		const again = await snapshot({ seed: 42 });
		const other = await snapshot({ seed: 43 });

		expect(again).toEqual(first);
		expect(other.agents.map((agent) => agent.phone_number)).not.toEqual(
			first.agents.map((agent) => agent.phone_number),
		);
	});

	test('reset then seed with the start-up counts gives the start-up data again', async () => {
		const started = await startSandbox({ port: 0, seed: 7 });
		const read = async () =>
			(await getJson(`${started.baseUrl}/calls?limit=100`)).calls.map(
				(call: { id: string }) => call.id,
			);
		try {
			const before = await read();
			await fetch(`${started.origin}/_sandbox/reset`, { method: 'POST' });
			await fetch(`${started.origin}/_sandbox/seed`, {
				method: 'POST',
				body: JSON.stringify({ agents: 3, calls: 12 }),
			});
			expect(await read()).toEqual(before);
		} finally {
			await started.close();
		}
	});
	test('liveCalls: calls in progress from the start, which end after callDurationMs', async () => {
		const started = await startSandbox({
			port: 0,
			agents: 1,
			calls: 2,
			liveCalls: 2,
			callDurationMs: 400,
		});
		try {
			const calls = (await getJson(`${started.baseUrl}/calls`)).calls;
			expect(calls.map((call: { status: string }) => call.status)).toEqual([
				'in_progress',
				'in_progress',
				expect.not.stringMatching('in_progress'),
				expect.not.stringMatching('in_progress'),
			]);
			for (const live of calls.slice(0, 2)) {
				const ended = await waitFor(`live call ${live.id} to end`, async () => {
					const call = await getJson(`${started.baseUrl}/call?id=${live.id}`);
					return call.status === 'in_progress' ? undefined : call;
				});
				expect(ended.ended_at).toMatch(ISO_TIMESTAMP);
				expect(ended.transcript.length).toBeGreaterThan(2);
			}
		} finally {
			await started.close();
		}
	});
});

describe('live calls (POST /_sandbox/seed live_calls)', () => {
	let receiver: WebhookReceiver;
	beforeEach(async () => {
		receiver = await startReceiver();
	});
	afterEach(() => receiver.close());

	test('are in progress, newest first, and take a new context', async () => {
		expect(await seed({ calls: 10, live_calls: 3 })).toEqual({
			agents_created: 1,
			calls_created: 10,
			live_calls_created: 3,
		});

		const calls = await listAll(sandbox, 'calls');
		expect(calls).toHaveLength(13);
		expect(calls.slice(0, 3).map((call) => call.status)).toEqual([
			'in_progress',
			'in_progress',
			'in_progress',
		]);
		for (const ended of calls.slice(3)) expect(ended.status).not.toBe('in_progress');
		for (const live of calls.slice(0, 3)) {
			const { body } = await sandbox.api('GET', '/call', { query: { id: live.id } });
			expect(body).toMatchObject({
				status: 'in_progress',
				ended_at: null,
				duration: null,
				transcript: [],
			});
			expect(body.to).toMatch(/^\+[1-9]\d{6,14}$/);
			expect(Math.abs(Date.parse(body.created_at) - Date.now())).toBeLessThan(60_000);
		}

		const pushed = await sandbox.api('POST', '/call/context', {
			body: { id: calls[0].id, context: 'The customer paid invoice 1042.' },
		});
		expect(pushed.status).toBe(200);
		expect(pushed.body).toMatchObject({
			status: 'in_progress',
			context: 'The customer paid invoice 1042.',
		});
	});

	test('run like placed calls: events to the agent webhook, and they end after call_duration_ms', async () => {
		const agent = await createAgent(sandbox, { name: 'Hooked', webhook: `${receiver.url}/hook` });
		expect(await seed({ live_calls: 2, call_duration_ms: 1000 })).toEqual({
			agents_created: 0,
			calls_created: 0,
			live_calls_created: 2,
		});
		const live = await listAll(sandbox, 'calls');
		expect(live.map((call) => call.agent_id)).toEqual([agent.id, agent.id]);
		const pushed = await sandbox.api('POST', '/call/context', {
			body: { id: live[0].id, context: 'Moved to Friday at 10' },
		});
		expect(pushed.status).toBe(200);

		const received = await receiver.waitForCount(4);
		for (const call of live) {
			const events = received.filter((request) => request.body.call_id === call.id);
			expect(events.map((request) => request.body.event_type)).toEqual([
				'call_started',
				'call_ended',
			]);
		}
		const ended = await whenEnded(live[0].id);
		expect(ended).toMatchObject({
			status: 'completed',
			context: 'Moved to Friday at 10',
			ended_at: expect.stringMatching(ISO_TIMESTAMP),
		});
		expect(ended.duration).toBeGreaterThanOrEqual(0.9);
		expect(ended.transcript.map((entry: { text: string }) => entry.text).join(' ')).toContain(
			'Moved to Friday at 10',
		);
		const endedEvent = received.find(
			(request) => request.body.call_id === live[0].id && request.body.event_type === 'call_ended',
		);
		expect(endedEvent?.body.data).toEqual(ended);
	});

	test('without call_duration_ms they last as long as placed calls', async () => {
		await seed({ agents: 1, live_calls: 1 });
		const [long] = await listAll(sandbox, 'calls');
		await seed({ live_calls: 1, call_duration_ms: 200 });
		const short = (await listAll(sandbox, 'calls')).find((call) => call.id !== long.id);

		expect((await whenEnded(short.id)).status).toBe('completed');
		const { body } = await sandbox.api('GET', '/call', { query: { id: long.id } });
		expect(body.status).toBe('in_progress');
	});

	test('reset cancels them: no call_ended follows', async () => {
		await createAgent(sandbox, { name: 'Cut off', webhook: `${receiver.url}/hook` });
		await seed({ live_calls: 1, call_duration_ms: 200 });
		await receiver.waitForCount(1);
		await sandbox.reset();
		await sleep(500);

		expect(receiver.received.map((request) => request.body.event_type)).toEqual(['call_started']);
	});
});
