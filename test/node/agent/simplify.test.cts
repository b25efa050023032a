/** Simplify on Agent → Get and Get Many (node version 1.2), run in n8n's engine against the sandbox. */
import { createAgent, wire } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

const FULL_AGENT = {
	name: 'Front Desk',
	area_code: '212',
	system_prompt: 'Book appointments for the clinic.',
	initial_message: 'Hello, this is the front desk.',
	voice_id: 'nova',
	webhook: 'https://crm.example.com/hooks/voice',
	voicemail_number: '+12125550100',
	language: 'es',
	endpointing: 250,
	actions: [{ name: 'transfer', instructions: 'On request', forwarding_number: '+12125550101' }],
};

/** What a CRM gets from Simplify: the agent's identity, number, voice, webhook and dates, in this order. */
const SIMPLIFIED_KEYS = [
	'id',
	'name',
	'phone_number',
	'voice_id',
	'language',
	'llm_model',
	'webhook',
	'voicemail_number',
	'created_at',
	'updated_at',
];

describe('Agent → Get: Simplify', () => {
	test('version 1.2 simplifies by default: the CRM fields with their values, no prompts or actions', async () => {
		const agent = await createAgent(sandbox, FULL_AGENT);
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'get', agent: rl(agent.id) },
			{ typeVersion: 1.2 },
		);

		expect(run.error).toBeUndefined();
		const [output] = jsonOf(run);
		expect(Object.keys(output)).toEqual(SIMPLIFIED_KEYS);
		expect(output).toEqual({
			id: agent.id,
			name: 'Front Desk',
			phone_number: agent.phone_number,
			voice_id: 'nova',
			language: 'es',
			llm_model: 'gpt-4o',
			webhook: 'https://crm.example.com/hooks/voice',
			voicemail_number: '+12125550100',
			created_at: agent.created_at,
			updated_at: agent.updated_at,
		});
		expect((await wire(sandbox)).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /agent']);
	});

	test('Simplify off outputs the agent exactly as the service answers it', async () => {
		const agent = await createAgent(sandbox, FULL_AGENT);

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'get', agent: rl(agent.id), simplify: false },
			{ typeVersion: 1.2 },
		);

		expect(jsonOf(run)).toEqual([agent]);
		expect(jsonOf(run)[0].system_prompt).toBe('Book appointments for the clinic.');
	});

	test.each([1, 1.1])(
		'version %s has no Simplify and keeps its full output, even with simplify saved in it',
		async (typeVersion) => {
			const agent = await createAgent(sandbox, FULL_AGENT);

			const run = await runWith(
				sandbox,
				{ resource: 'agent', operation: 'get', agent: rl(agent.id), simplify: true },
				{ typeVersion },
			);

			expect(jsonOf(run)).toEqual([agent]);
		},
	);
});

describe('Agent → Get Many: Simplify', () => {
	test('version 1.2 simplifies every listed agent by default, keeping the fields the listing has', async () => {
		await sandbox.seed({ agents: 5 });
		const { body } = await sandbox.api('GET', '/agents', { query: { limit: 3 } });

		const run = await runWith(
			sandbox,
			{ resource: 'agent', operation: 'getMany', returnAll: false, limit: 3 },
			{ typeVersion: 1.2 },
		);

		expect(run.error).toBeUndefined();
		const agents = jsonOf(run);
		expect(agents).toHaveLength(3);
		// A listing carries no language or voicemail number: Simplify invents nothing.
		expect(agents).toEqual(
			body.agents.map((agent: Record<string, unknown>) => ({
				id: agent.id,
				name: agent.name,
				phone_number: agent.phone_number,
				voice_id: agent.voice_id,
				llm_model: agent.llm_model,
				webhook: agent.webhook,
				created_at: agent.created_at,
				updated_at: agent.updated_at,
			})),
		);
		for (const agent of agents) expect(agent).not.toHaveProperty('system_prompt');
	});

	test('Name Contains with Simplify keeps the matching agents, simplified', async () => {
		await createAgent(sandbox, { ...FULL_AGENT, name: 'Reminder East' });
		await createAgent(sandbox, { ...FULL_AGENT, name: 'Front Desk' });

		const run = await runWith(
			sandbox,
			{
				resource: 'agent',
				operation: 'getMany',
				returnAll: true,
				filters: { nameContains: 'reminder' },
			},
			{ typeVersion: 1.2 },
		);

		expect(jsonOf(run).map((agent) => [agent.name, agent.webhook, agent.tools])).toEqual([
			['Reminder East', 'https://crm.example.com/hooks/voice', undefined],
		]);
	});

	test('Simplify off at version 1.2 lists the agents in full, as version 1.1 does', async () => {
		await sandbox.seed({ agents: 2 });
		const { body } = await sandbox.api('GET', '/agents', { query: { limit: 2 } });

		const runs = await Promise.all([
			runWith(
				sandbox,
				{ resource: 'agent', operation: 'getMany', returnAll: false, limit: 2, simplify: false },
				{ typeVersion: 1.2 },
			),
			runWith(
				sandbox,
				{ resource: 'agent', operation: 'getMany', returnAll: false, limit: 2 },
				{ typeVersion: 1.1 },
			),
		]);

		for (const run of runs) expect(jsonOf(run)).toEqual(body.agents);
	});
});
