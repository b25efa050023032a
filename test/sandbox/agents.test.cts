import { createAgent, listAll } from '../support/api.cts';
import {
	CHECK_ORDER_TOOL as FUNCTION_TOOL,
	ISO_TIMESTAMP,
	usNumberIn,
} from '../support/fixtures.cts';
import { useSandbox } from '../support/sandbox.cts';
import { AGENT_FIELDS, AGENT_LIST_FIELDS, compareNewestFirst } from './helpers.cts';

const sandbox = useSandbox();

/** What a new agent has for every setting it is not given. */
const DEFAULT_SETTINGS = {
	system_prompt: '',
	initial_message: '',
	llm_model: 'gpt-4o',
	voice_id: '',
	webhook: '',
	tools: [],
	filler_words: false,
	filler_words_whitelist: [],
	actions: [],
	voicemail_number: '',
	chunking: false,
	endpointing: 0,
	voice_optimization: 0,
	smart_endpointing_threshold: 0,
	language: 'en',
	compliance_checks: [],
};

/** Every optional setting as null, the way the service's own client library sends the fields it does not set. */
const EVERY_SETTING_NULL = Object.fromEntries(
	Object.keys(DEFAULT_SETTINGS).map((field) => [field, null]),
);

/** An agent with every field set to something other than its default. */
const EVERY_FIELD = {
	name: 'Orders',
	area_code: '415',
	system_prompt: 'You help with orders.',
	initial_message: 'Hi!',
	llm_model: 'service-voice',
	voice_id: 'nova',
	webhook: 'https://hooks.example.com/voice?token=abc',
	tools: [FUNCTION_TOOL],
	filler_words: true,
	filler_words_whitelist: ['um', 'well'],
	actions: [
		{
			name: 'transfer',
			instructions: 'Transfer on request',
			forwarding_number: '+14155550100',
		},
	],
	voicemail_number: '+4930123456',
	chunking: true,
	endpointing: 250,
	voice_optimization: 4,
	smart_endpointing_threshold: 3,
	language: 'de',
	compliance_checks: [
		{ name: 'polite', model: 'gpt-4o', check_instructions: 'Be polite', rewrite_threshold: 2 },
	],
};

describe('POST /agent creates an agent', () => {
	test('with the defaults for omitted fields and a +1 phone number in its area code', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Reception', area_code: '212' },
		});

		expect(status).toBe(200);
		expect(Object.keys(body).sort()).toEqual(AGENT_FIELDS);
		expect(body).toMatchObject({ name: 'Reception', ...DEFAULT_SETTINGS });
		expect(body.id).toEqual(expect.any(String));
		expect(body.phone_number).toMatch(usNumberIn('212'));
		expect(body.created_at).toMatch(ISO_TIMESTAMP);
		expect(body.updated_at).toBe(body.created_at);
	});

	test('stores every given field as given', async () => {
		const fields = EVERY_FIELD;
		const { status, body } = await sandbox.api('POST', '/agent', { body: fields });

		expect(status).toBe(200);
		const { area_code: _areaCode, ...stored } = fields;
		expect(body).toMatchObject(stored);
		expect(body).not.toHaveProperty('area_code');
		const fetched = await sandbox.api('GET', '/agent', { query: { id: body.id } });
		expect(fetched.body).toEqual(body);
	});

	test('needs area_code: the 400 says name and area_code are required to create a new agent', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', { body: { name: 'No Area' } });

		expect(status).toBe(400);
		expect(body.error).toBe('Bad Request');
		expect(body.message).toMatch(/name/);
		expect(body.message).toMatch(/area_code/);
		expect(body.message).toMatch(/required to create a new agent/);
		expect((await sandbox.api('GET', '/agents')).body.agents).toEqual([]);
	});

	test.each([
		['a number', 415],
		['two digits', '41'],
		['four digits', '4155'],
		['letters', 'abc'],
	])('rejects an area_code that is %s', async (_label, areaCode) => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'A', area_code: areaCode },
		});

		expect(status).toBe(400);
		expect(body.message).toMatch(/area_code/);
	});

	test.each([
		['missing', {}],
		['empty', { name: '' }],
		['blank', { name: '   ' }],
		['not a string', { name: 7 }],
	])('rejects a name that is %s', async (_label, fields) => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { area_code: '415', ...fields },
		});

		expect(status).toBe(400);
		expect(body).toEqual({ error: 'Bad Request', message: expect.stringMatching(/name/) });
	});

	test('rejects a body that is not an object', async () => {
		for (const body of [[], 'agent', null]) {
			const result = await sandbox.api('POST', '/agent', { body });
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('Bad Request');
		}
		const empty = await sandbox.api('POST', '/agent', {});
		expect(empty.status).toBe(400);
	});

	test('gives every agent of an account its own phone number', async () => {
		const numbers = new Set<string>();
		for (let i = 0; i < 40; i++) {
			const agent = await createAgent(sandbox, { name: `Agent ${i}`, area_code: '617' });
			expect(agent.phone_number).toMatch(usNumberIn('617'));
			numbers.add(agent.phone_number);
		}
		expect(numbers.size).toBe(40);
	});
});

describe('POST /agent updates the agent with the same name', () => {
	test('keeps the id, the phone number and every omitted field', async () => {
		const created = await createAgent(sandbox, {
			name: 'Support',
			system_prompt: 'Be helpful.',
			voice_id: 'alloy',
			tools: [FUNCTION_TOOL],
			endpointing: 100,
			webhook: 'http://127.0.0.1:9/hook',
		});

		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Support', voice_id: 'echo', endpointing: 0 },
		});

		expect(status).toBe(200);
		expect(body).toEqual({
			...created,
			voice_id: 'echo',
			endpointing: 0,
			updated_at: expect.stringMatching(ISO_TIMESTAMP),
		});
		expect(body.updated_at >= created.updated_at).toBe(true);
		expect((await sandbox.api('GET', '/agent', { query: { id: created.id } })).body).toEqual(body);
		expect(await listAll(sandbox, 'agents')).toHaveLength(1);
	});

	test('ignores area_code on update (the phone number stays)', async () => {
		const created = await createAgent(sandbox, { name: 'Stays', area_code: '415' });
		const { body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Stays', area_code: '212' },
		});

		expect(body.phone_number).toBe(created.phone_number);
	});

	test('can clear fields with empty values', async () => {
		await createAgent(sandbox, {
			name: 'Clear',
			webhook: 'https://example.com/h',
			voicemail_number: '+14155550000',
			tools: [FUNCTION_TOOL],
		});
		const { body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Clear', webhook: '', voicemail_number: '', tools: [] },
		});

		expect(body).toMatchObject({ webhook: '', voicemail_number: '', tools: [] });
	});

	test('keeps an older llm_model from the listings when the update omits it', async () => {
		await sandbox.seed({ agents: 3 });
		const legacy = (await listAll(sandbox, 'agents')).find(
			(agent) => agent.llm_model === 'gpt-3.5-turbo',
		);
		expect(legacy).toBeDefined();

		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: legacy.name, voice_id: 'onyx' },
		});

		expect(status).toBe(200);
		expect(body.llm_model).toBe('gpt-3.5-turbo');
	});
});

describe('POST /agent takes null as "not given"', () => {
	test('a new agent gets the default of every setting that is null', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Nulls', area_code: '415', ...EVERY_SETTING_NULL },
		});

		expect(status).toBe(200);
		expect(Object.keys(body).sort()).toEqual(AGENT_FIELDS);
		expect(body).toMatchObject({ name: 'Nulls', ...DEFAULT_SETTINGS });
		expect(body.phone_number).toMatch(/^\+1415\d{7}$/);
	});

	test('an update keeps every setting that is null, and area_code null is fine', async () => {
		const created = await createAgent(sandbox, EVERY_FIELD);

		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: EVERY_FIELD.name, area_code: null, ...EVERY_SETTING_NULL },
		});

		expect(status).toBe(200);
		expect(body).toEqual({ ...created, updated_at: expect.stringMatching(ISO_TIMESTAMP) });
		expect((await sandbox.api('GET', '/agent', { query: { id: created.id } })).body).toEqual(body);
	});

	test('an update changes the given fields and keeps the null ones', async () => {
		const created = await createAgent(sandbox, EVERY_FIELD);

		const { body } = await sandbox.api('POST', '/agent', {
			body: {
				...EVERY_SETTING_NULL,
				name: EVERY_FIELD.name,
				system_prompt: 'You only answer questions about returns.',
				voicemail_number: '',
			},
		});

		expect(body).toEqual({
			...created,
			system_prompt: 'You only answer questions about returns.',
			voicemail_number: '',
			updated_at: expect.stringMatching(ISO_TIMESTAMP),
		});
	});

	test('name null is a 400 naming name; nothing is created', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: null, area_code: '415', system_prompt: 'x' },
		});

		expect(status).toBe(400);
		expect(body).toEqual({ error: 'Bad Request', message: expect.stringMatching(/^name/) });
		expect(await listAll(sandbox, 'agents')).toEqual([]);
	});

	test('area_code null on creation counts as missing', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'No Area Yet', area_code: null },
		});

		expect(status).toBe(400);
		expect(body.message).toMatch(/name and area_code are required to create a new agent/);
		expect(body.message).toMatch(/area_code .*is missing/);
		expect(await listAll(sandbox, 'agents')).toEqual([]);
	});
});

describe('POST /agent validation answers 400 and names the field', () => {
	test.each<[string, unknown, string]>([
		['system_prompt', 5, 'system_prompt'],
		['initial_message', true, 'initial_message'],
		['llm_model', 'gpt-3.5-turbo', 'llm_model'],
		['llm_model', 'some-model', 'llm_model'],
		['voice_id', ['nova'], 'voice_id'],
		['webhook', 'ftp://example.com/hook', 'webhook'],
		['webhook', 'not a url', 'webhook'],
		['webhook', 42, 'webhook'],
		['tools', { type: 'function' }, 'tools'],
		['tools', ['check_order'], 'tools[0]'],
		['tools', [[FUNCTION_TOOL]], 'tools[0]'],
		['filler_words', 'true', 'filler_words'],
		['filler_words_whitelist', 'um', 'filler_words_whitelist'],
		['filler_words_whitelist', ['um', 1], 'filler_words_whitelist[1]'],
		['actions', { name: 'x' }, 'actions'],
		['actions', ['transfer'], 'actions[0]'],
		['actions', [{ name: 5 }], 'actions[0].name'],
		['actions', [{ instructions: false }], 'actions[0].instructions'],
		[
			'actions',
			[{ name: 'ok' }, { forwarding_number: '555-0100' }],
			'actions[1].forwarding_number',
		],
		['voicemail_number', '4155550100', 'voicemail_number'],
		['voicemail_number', '+0415555010', 'voicemail_number'],
		['voicemail_number', '+123456', 'voicemail_number'],
		['voicemail_number', '+1234567890123456', 'voicemail_number'],
		['voicemail_number', '+1 415 555 0100', 'voicemail_number'],
		['endpointing', -1, 'endpointing'],
		['endpointing', 1.5, 'endpointing'],
		['endpointing', '100', 'endpointing'],
		['voice_optimization', 5, 'voice_optimization'],
		['voice_optimization', -1, 'voice_optimization'],
		['voice_optimization', 2.5, 'voice_optimization'],
		['smart_endpointing_threshold', -3, 'smart_endpointing_threshold'],
		['smart_endpointing_threshold', 0.5, 'smart_endpointing_threshold'],
		['language', 1, 'language'],
		['chunking', 'no', 'chunking'],
		['compliance_checks', 'strict', 'compliance_checks'],
		['compliance_checks', [{ name: 1 }], 'compliance_checks[0].name'],
		['compliance_checks', [{ model: 4 }], 'compliance_checks[0].model'],
		['compliance_checks', [{ check_instructions: [] }], 'compliance_checks[0].check_instructions'],
		['compliance_checks', [{ rewrite_threshold: -1 }], 'compliance_checks[0].rewrite_threshold'],
		['compliance_checks', [{ rewrite_threshold: 1.5 }], 'compliance_checks[0].rewrite_threshold'],
	])('%s = %j', async (field, value, path) => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Invalid', area_code: '415', [field]: value },
		});

		expect(status).toBe(400);
		expect(body.error).toBe('Bad Request');
		expect(body.message.startsWith(path)).toBe(true);
		expect((await sandbox.api('GET', '/agents')).body.num_items).toBe(0);
	});

	test('an invalid update leaves the agent unchanged', async () => {
		const created = await createAgent(sandbox, { name: 'Unchanged', voice_id: 'nova' });
		const { status } = await sandbox.api('POST', '/agent', {
			body: { name: 'Unchanged', voice_id: 'echo', voice_optimization: 9 },
		});

		expect(status).toBe(400);
		expect((await sandbox.api('GET', '/agent', { query: { id: created.id } })).body).toEqual(
			created,
		);
	});

	test('accepts the boundary values', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: {
				name: 'Bounds',
				area_code: '000',
				voice_optimization: 4,
				endpointing: 0,
				smart_endpointing_threshold: 0,
				voicemail_number: '+1234567',
				actions: [{ forwarding_number: '+123456789012345' }],
				webhook: 'http://localhost:5678/webhook/abc',
			},
		});
		expect(status).toBe(200);
		expect(body.voicemail_number).toBe('+1234567');
		expect(
			(await sandbox.api('POST', '/agent', { body: { name: 'Bounds', voice_optimization: 0 } }))
				.status,
		).toBe(200);
	});

	test('ignores fields it does not know', async () => {
		const { status, body } = await sandbox.api('POST', '/agent', {
			body: { name: 'Extra', area_code: '415', favourite_colour: 'blue' },
		});

		expect(status).toBe(200);
		expect(body).not.toHaveProperty('favourite_colour');
	});
});

describe('GET /agent', () => {
	test('answers the agent in the upsert shape', async () => {
		const created = await createAgent(sandbox, { name: 'Fetch me' });
		const { status, body } = await sandbox.api('GET', '/agent', { query: { id: created.id } });

		expect(status).toBe(200);
		expect(body).toEqual(created);
	});

	test('answers 400 without id and 404 for an unknown id', async () => {
		const missing = await sandbox.api('GET', '/agent');
		expect(missing.status).toBe(400);
		expect(missing.body.message).toMatch(/id/);
		expect((await sandbox.api('GET', '/agent', { query: { id: '' } })).status).toBe(400);

		const unknown = await sandbox.api('GET', '/agent', { query: { id: 'agt_unknown' } });
		expect(unknown.status).toBe(404);
		expect(unknown.body).toEqual({
			error: 'Not Found',
			message: expect.stringContaining('agt_unknown'),
		});
	});
});

describe('DELETE /agent', () => {
	test('deletes the agent: 200 {id, deleted: true}, then it is gone', async () => {
		const agent = await createAgent(sandbox, { name: 'Temporary' });
		const { status, body } = await sandbox.api('DELETE', '/agent', { query: { id: agent.id } });

		expect(status).toBe(200);
		expect(body).toEqual({ id: agent.id, deleted: true });
		expect((await sandbox.api('GET', '/agent', { query: { id: agent.id } })).status).toBe(404);
		expect((await sandbox.api('DELETE', '/agent', { query: { id: agent.id } })).status).toBe(404);
		expect(await listAll(sandbox, 'agents')).toEqual([]);
	});

	test('frees the name: the next upsert with it creates a new agent', async () => {
		const first = await createAgent(sandbox, { name: 'Reused' });
		await sandbox.api('DELETE', '/agent', { query: { id: first.id } });

		const withoutAreaCode = await sandbox.api('POST', '/agent', { body: { name: 'Reused' } });
		expect(withoutAreaCode.status).toBe(400);
		const second = await createAgent(sandbox, { name: 'Reused' });
		expect(second.id).not.toBe(first.id);
	});

	test('answers 400 without id and 404 for an unknown id', async () => {
		expect((await sandbox.api('DELETE', '/agent')).status).toBe(400);
		const unknown = await sandbox.api('DELETE', '/agent', { query: { id: 'agt_nope' } });
		expect(unknown.status).toBe(404);
		expect(unknown.body.error).toBe('Not Found');
	});
});

test('PUT /agent answers 501 with an error body pointing to the upsert', async () => {
	const { status, body } = await sandbox.api('PUT', '/agent', { body: { name: 'X' } });

	expect(status).toBe(501);
	expect(body).toEqual({
		error: 'Not Implemented',
		message: expect.stringContaining('POST /agent'),
	});
});

describe('GET /agents', () => {
	test('lists agents in the list shape, newest first', async () => {
		const first = await createAgent(sandbox, { name: 'First' });
		const second = await createAgent(sandbox, { name: 'Second' });
		const { status, body } = await sandbox.api('GET', '/agents');

		expect(status).toBe(200);
		expect(body.num_items).toBe(2);
		expect(body.cursor ?? '').toBe('');
		for (const agent of body.agents) expect(Object.keys(agent).sort()).toEqual(AGENT_LIST_FIELDS);
		const ids = body.agents.map((agent: { id: string }) => agent.id);
		expect(ids).toEqual([first, second].sort(compareNewestFirst).map((agent) => agent.id));
	});

	test('lists the older model name some seeded agents carry', async () => {
		await sandbox.seed({ agents: 6 });
		const models = new Set((await listAll(sandbox, 'agents')).map((agent) => agent.llm_model));

		expect(models).toEqual(new Set(['gpt-4o', 'service-voice', 'gpt-3.5-turbo']));
	});
});
