/**
 * Agent outputs of the Voice Agent node never show a webhook's token: Get, Get Many (plain and with
 * Name Contains) and Create or Update, run in n8n's engine against the sandbox. The agent itself keeps
 * its webhook unchanged.
 */
import { createAgent, getAgent } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

const TOKEN = '1eda0d3accc6d1b2dfcc3c6ac5a5c518d5aa8bfdeab99daf';
const WEBHOOK = `https://n8n.example.com/webhook/6c1d0f3e/events?token=${TOKEN}`;
const SHOWN = 'https://n8n.example.com/webhook/6c1d0f3e/events?token=REDACTED';

describe('webhook tokens in agent outputs', () => {
	test('Get shows the webhook with its token redacted; the agent keeps it', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: WEBHOOK });

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl(agent.id),
		});

		expect(jsonOf(run)).toEqual([{ ...agent, webhook: SHOWN }]);
		expect(JSON.stringify(run.items)).not.toContain(TOKEN);
		expect((await getAgent(sandbox, agent.id)).webhook).toBe(WEBHOOK);
	});

	test('Get Many redacts every agent, with and without Name Contains', async () => {
		await createAgent(sandbox, { name: 'Orders', webhook: WEBHOOK });
		await createAgent(sandbox, {
			name: 'Returns',
			webhook: `https://hooks.example.com/in?a=1&token=other-secret&b=2#top`,
		});
		await createAgent(sandbox, { name: 'Billing' });

		const all = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: true,
		});
		const named = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: true,
			filters: { nameContains: 'r' },
		});

		const webhooks = (run: typeof all) =>
			Object.fromEntries(jsonOf(run).map((agent) => [agent.name, agent.webhook]));
		expect(webhooks(all)).toEqual({
			Orders: SHOWN,
			Returns: 'https://hooks.example.com/in?a=1&token=REDACTED&b=2#top',
			Billing: '',
		});
		expect(webhooks(named)).toEqual({
			Orders: SHOWN,
			Returns: 'https://hooks.example.com/in?a=1&token=REDACTED&b=2#top',
		});
		for (const run of [all, named]) {
			expect(JSON.stringify(run.items)).not.toContain(TOKEN);
			expect(JSON.stringify(run.items)).not.toContain('other-secret');
		}
	});

	test('Create or Update sends the webhook as given and outputs it redacted', async () => {
		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'upsert',
			name: 'Front Desk',
			areaCode: '212',
			additionalFields: { webhook: WEBHOOK },
		});

		const [output] = jsonOf(run);
		expect(output.webhook).toBe(SHOWN);
		expect(JSON.stringify(run.items)).not.toContain(TOKEN);
		expect((await getAgent(sandbox, output.id)).webhook).toBe(WEBHOOK);
	});

	test('a webhook without a token is output as it is', async () => {
		const webhook = 'https://hooks.example.com/voice?tokens=1&my_token=2';
		const agent = await createAgent(sandbox, { name: 'Plain', webhook });

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'get',
			agent: rl(agent.id),
		});

		expect(jsonOf(run)[0].webhook).toBe(webhook);
	});
});
