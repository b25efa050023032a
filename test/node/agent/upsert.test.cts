/** Agent → Create or Update of the Voice Agent node, run in n8n's engine against the sandbox. */
import { createAgent, getAgent, wire, type WireRequest } from '../../support/api.cts';
import { API_KEY, usNumberIn } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

/** The list read that tells an update the agent's other fields, once per run: the first request. */
const LIST_READ: WireRequest = {
	method: 'GET',
	path: '/agents',
	query: { limit: '100' },
	body: null,
	status: 200,
};

/** The bodies of the run's POST /agent requests. */
async function upserts(): Promise<unknown[]> {
	return (await wire(sandbox))
		.filter((request) => request.method === 'POST' && request.path === '/agent')
		.map((request) => request.body);
}

/**
 * What an update sends besides the fields set: the agent's other upsert fields as the list shows them, so
 * that a service that replaces a whole agent on update (the live one) keeps them too.
 */
const LISTED_DEFAULTS = {
	system_prompt: '',
	initial_message: '',
	llm_model: 'gpt-4o',
	voice_id: '',
	webhook: '',
	tools: [],
	filler_words: false,
	filler_words_whitelist: [],
};

const TOOL = {
	type: 'function',
	function: {
		name: 'book_slot',
		description: 'Book an appointment slot',
		parameters: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
	},
};

describe('Agent: Create or Update', () => {
	test('creates an agent with an area code: POST /agent with name and area_code, output is the new agent', async () => {
		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Front Desk',
			areaCode: '212',
		});

		const [agent] = jsonOf(run);
		expect(run.items).toHaveLength(1);
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		expect(await wire(sandbox)).toEqual([
			LIST_READ,
			{
				method: 'POST',
				path: '/agent',
				query: {},
				body: { name: 'Front Desk', area_code: '212' },
				status: 200,
			},
		]);
		expect(agent).toMatchObject({
			id: expect.any(String),
			name: 'Front Desk',
			phone_number: expect.stringMatching(usNumberIn('212')),
			llm_model: 'gpt-4o',
			language: 'en',
		});
		expect(await getAgent(sandbox, agent.id)).toEqual(agent);
	});

	test('an empty Voicemail Number removes the number the agent had', async () => {
		await createAgent(sandbox, { name: 'Night Line', voicemail_number: '+14155550111' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Night Line',
			additionalFields: { voicemailNumber: '' },
		});

		expect(run.error).toBeUndefined();
		expect(await upserts()).toEqual([
			{ ...LISTED_DEFAULTS, name: 'Night Line', voicemail_number: '' },
		]);
		expect(jsonOf(run)[0].voicemail_number).toBe('');
	});

	test('updates an existing agent by name: the fields set change, the others keep their values (sent as listed)', async () => {
		const existing = await createAgent(sandbox, {
			name: 'Reminder',
			system_prompt: 'Remind patients of appointments.',
			initial_message: 'Hello!',
			voice_id: 'nova',
			endpointing: 250,
			filler_words: true,
		});
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Reminder',
			additionalFields: { initialMessage: 'Good morning, this is the clinic.' },
		});

		const [agent] = jsonOf(run);
		expect(await wire(sandbox)).toEqual([
			LIST_READ,
			{
				method: 'POST',
				path: '/agent',
				query: {},
				body: {
					...LISTED_DEFAULTS,
					name: 'Reminder',
					system_prompt: 'Remind patients of appointments.',
					initial_message: 'Good morning, this is the clinic.',
					voice_id: 'nova',
					filler_words: true,
				},
				status: 200,
			},
		]);
		expect(agent).toMatchObject({
			id: existing.id,
			phone_number: existing.phone_number,
			initial_message: 'Good morning, this is the clinic.',
			system_prompt: 'Remind patients of appointments.',
			voice_id: 'nova',
			endpointing: 250,
			filler_words: true,
		});
	});

	test('maps every additional field to its snake_case key with the right type', async () => {
		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Full Agent',
			areaCode: '415',
			additionalFields: {
				systemPrompt: 'You confirm bookings.',
				initialMessage: 'Hi, calling about your booking.',
				llmModel: 'service-voice',
				voiceId: 'alloy',
				webhook: 'https://example.com/hooks/voice',
				tools: JSON.stringify([TOOL]),
				fillerWords: true,
				fillerWordsWhitelist: 'um, well , let me see,',
				actions: {
					action: [
						{
							name: 'transfer',
							instructions: 'Transfer on request',
							forwardingNumber: '+1 (415) 555-0100',
						},
						{
							name: 'escalate',
							instructions: 'Escalate complaints',
							forwardingNumber: '+442071234567',
						},
					],
				},
				voicemailNumber: '+14155550111',
				endpointing: 300,
				voiceOptimization: 4,
				smartEndpointingThreshold: 2,
				language: 'es',
				complianceChecks: {
					check: [
						{
							name: 'no_promises',
							model: 'gpt-4o',
							checkInstructions: 'Never promise refunds.',
							rewriteThreshold: 3,
						},
					],
				},
			},
		});

		const [agent] = jsonOf(run);
		const expectedBody = {
			name: 'Full Agent',
			area_code: '415',
			system_prompt: 'You confirm bookings.',
			initial_message: 'Hi, calling about your booking.',
			llm_model: 'service-voice',
			voice_id: 'alloy',
			webhook: 'https://example.com/hooks/voice',
			tools: [TOOL],
			filler_words: true,
			filler_words_whitelist: ['um', 'well', 'let me see'],
			actions: [
				{
					name: 'transfer',
					instructions: 'Transfer on request',
					forwarding_number: '+14155550100',
				},
				{
					name: 'escalate',
					instructions: 'Escalate complaints',
					forwarding_number: '+442071234567',
				},
			],
			voicemail_number: '+14155550111',
			endpointing: 300,
			voice_optimization: 4,
			smart_endpointing_threshold: 2,
			language: 'es',
			compliance_checks: [
				{
					name: 'no_promises',
					model: 'gpt-4o',
					check_instructions: 'Never promise refunds.',
					rewrite_threshold: 3,
				},
			],
		};
		const requests = await wire(sandbox);
		expect(requests).toHaveLength(2);
		expect(requests[0]).toEqual(LIST_READ);
		expect(requests[1]).toMatchObject({ method: 'POST', path: '/agent', status: 200 });
		// toStrictEqual: the exact keys, and numbers as numbers, booleans as booleans, arrays as arrays.
		expect(requests[1].body).toStrictEqual(expectedBody);
		const { area_code: _areaCode, name: _name, ...stored } = expectedBody;
		expect(agent).toMatchObject({ name: 'Full Agent', ...stored });
	});

	test('an update can clear the webhook, turn filler words off and remove all tools: empty and false are sent, not dropped', async () => {
		await createAgent(sandbox, {
			name: 'Hooked',
			webhook: 'https://example.com/old',
			filler_words: true,
		});
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Hooked',
			additionalFields: { webhook: '', fillerWords: false, removeAllTools: true },
		});

		const [agent] = jsonOf(run);
		expect(await upserts()).toStrictEqual([
			{ ...LISTED_DEFAULTS, name: 'Hooked', webhook: '', filler_words: false, tools: [] },
		]);
		expect(agent).toMatchObject({ webhook: '', filler_words: false, tools: [] });
	});

	test("Tools (JSON) added but left empty keeps the agent's tools: they are sent back as listed", async () => {
		await createAgent(sandbox, { name: 'Tooled', tools: [TOOL] });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Tooled',
			additionalFields: { tools: '', systemPrompt: 'Be brief.' },
		});

		const [agent] = jsonOf(run);
		expect(await upserts()).toStrictEqual([
			{ ...LISTED_DEFAULTS, name: 'Tooled', system_prompt: 'Be brief.', tools: [TOOL] },
		]);
		expect(agent.tools).toEqual([TOOL]);
	});

	test('a tools list given as an array by an expression is sent as is', async () => {
		const run = await runWith(
			sandbox,
			{
				resource: 'agent',
				operation: 'upsert',
				name: 'Expression Agent',
				areaCode: '={{ $json.area }}',
				additionalFields: {
					tools: '={{ $json.tools }}',
					fillerWordsWhitelist: '={{ $json.words }}',
				},
			},
			{ input: [{ area: 312, tools: [TOOL], words: ['hmm', ' right '] }] },
		);

		jsonOf(run);
		const [body] = await upserts();
		expect(body).toStrictEqual({
			name: 'Expression Agent',
			area_code: '312',
			tools: [TOOL],
			filler_words_whitelist: ['hmm', 'right'],
		});
	});

	test("creating without an area code shows the service's 400 message, with the fields named as in the node", async () => {
		const run = await runWith(sandbox, { resource: 'agent', operation: 'upsert', name: 'No Area' });

		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			'The Voice Agent API rejected the request: Name and Area Code are required to create a new agent; there is no agent named "No Area" and Area Code (3 digits, e.g. "415") is missing',
		);
		expect(await wire(sandbox)).toHaveLength(2);
	});

	test('one request per input item, each output paired with its item', async () => {
		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'upsert', name: '={{ $json.name }}', areaCode: '415' },
			{ input: [{ name: 'One' }, { name: 'Two' }, { name: 'Three' }] },
		);

		expect(jsonOf(run).map((agent) => agent.name)).toEqual(['One', 'Two', 'Three']);
		expect(run.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect((await upserts()).map((body) => (body as { name: string }).name)).toEqual([
			'One',
			'Two',
			'Three',
		]);
		// The agent list is read once for the whole run.
		expect((await wire(sandbox)).filter((request) => request.path === '/agents')).toHaveLength(1);
	});
});
