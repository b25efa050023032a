/**
 * The trigger's token lifecycle: Token Rotation gives the agent a URL with a new token without a new API
 * key, the same on every main and across a restart, and the old token is answered 401; the saved state
 * (static data, exported with the workflow) holds the token's hash only. Run in n8n-core's HookContext
 * and WebhookContext against the sandbox; see ./trigger.cts for what stands in for n8n.
 */
import type { INodeParameters } from 'n8n-workflow';

import { createAgent, getAgent } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { post, useTriggers, type TriggerHarness } from './trigger.cts';
import { agentUpserts, hashOf, splitWebhook } from './helpers.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);

let events = 0;

/** How n8n answers a new event (never a redelivery) carrying this token at the production URL. */
async function statusWith(trigger: TriggerHarness, token: string): Promise<number> {
	const event = JSON.stringify({
		event_type: 'call_started',
		call_id: `call_${++events}`,
		timestamp: '2026-11-22T10:15:30.123Z',
		data: {},
	});
	return (await post(`${trigger.url('production')}?token=${token}`, event)).status;
}

async function agentToken(agentId: string): Promise<string> {
	return splitWebhook((await getAgent(sandbox, agentId)).webhook).params.token;
}

/** A published trigger on a new agent, and the token the agent got. */
async function published(parameters: INodeParameters = {}) {
	const agent = await createAgent(sandbox, { name: 'Orders' });
	const trigger = await triggers.start(agent.id, parameters);
	await trigger.activate();
	return { agent, trigger, first: await agentToken(agent.id) };
}

function rotate(trigger: TriggerHarness, agentId: string, rotation: number): void {
	trigger.setParameters({ agent: rl(agentId), options: { tokenRotation: rotation } });
}

describe('Token Rotation', () => {
	test('changed and published again: the agent gets a new token, the old one is answered 401', async () => {
		const { agent, trigger, first } = await published();

		rotate(trigger, agent.id, 1);
		await trigger.activate('update');

		const second = await agentToken(agent.id);
		expect(second).not.toBe(first);
		expect(splitWebhook((await getAgent(sandbox, agent.id)).webhook).base).toBe(
			trigger.url('production'),
		);
		expect(await statusWith(trigger, first)).toBe(401);
		expect(await statusWith(trigger, second)).toBe(200);
		expect(trigger.registrations()[trigger.url('production')]).toMatchObject({
			tokenHash: hashOf(second),
			rotation: 1,
		});
	});

	test('unpublished and published again with a new rotation: the same, and the previous webhook is still put back', async () => {
		const agent = await createAgent(sandbox, {
			name: 'Orders',
			webhook: 'https://crm.example.com/in',
		});
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();
		const first = await agentToken(agent.id);

		await trigger.deactivate();
		trigger.setParameters({
			agent: rl(agent.id),
			options: { replaceExistingWebhook: true, tokenRotation: 7 },
		});
		await trigger.activate();
		const second = await agentToken(agent.id);

		expect(second).not.toBe(first);
		expect(await statusWith(trigger, first)).toBe(401);
		expect(await statusWith(trigger, second)).toBe(200);
		await trigger.deactivate();
		expect((await getAgent(sandbox, agent.id)).webhook).toBe('https://crm.example.com/in');
	});

	test('several mains starting together with the new rotation converge on one token', async () => {
		const { agent, trigger, first } = await published();
		rotate(trigger, agent.id, 2);
		await sandbox.clearRequests();

		await Promise.all([
			trigger.activate('init'),
			trigger.activate('init'),
			trigger.activate('init'),
		]);

		const second = await agentToken(agent.id);
		const sent = (await agentUpserts(sandbox)).map(
			(request) => (request.body as { webhook: string }).webhook,
		);
		expect(sent.length).toBeGreaterThan(0);
		expect(new Set(sent)).toEqual(new Set([`${trigger.url('production')}?token=${second}`]));
		expect(trigger.registrations()[trigger.url('production')].tokenHash).toBe(hashOf(second));
		expect(await statusWith(trigger, first)).toBe(401);
		expect(await statusWith(trigger, second)).toBe(200);
	});

	test('holds across a restart: the main checks the agent, sends nothing, and the old token stays refused', async () => {
		const { agent, trigger, first } = await published();
		rotate(trigger, agent.id, 1);
		await trigger.activate('update');
		const second = await agentToken(agent.id);
		await sandbox.clearRequests();

		trigger.restart();
		await trigger.activate('init');

		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(await agentToken(agent.id)).toBe(second);
		expect(await statusWith(trigger, first)).toBe(401);
		expect(await statusWith(trigger, second)).toBe(200);
	});

	test('is derived, not random: setting a number used before brings its token back', async () => {
		const { agent, trigger, first } = await published();
		rotate(trigger, agent.id, 1);
		await trigger.activate('update');

		rotate(trigger, agent.id, 0);
		await trigger.activate('update');

		expect(await agentToken(agent.id)).toBe(first);
	});

	test('a value that is not a whole number from 0 fails the publish, naming the field, and sends nothing', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id, { options: { tokenRotation: -1 } });
		await sandbox.clearRequests();

		await expect(trigger.activate()).rejects.toThrow(
			'Token Rotation must be a whole number from 0 (got -1)',
		);
		expect(await agentUpserts(sandbox)).toEqual([]);
		expect((await getAgent(sandbox, agent.id)).webhook).toBe('');
	});
});

describe('the saved state (static data, in every workflow export)', () => {
	test('holds the SHA-256 of the token, never the token', async () => {
		const { trigger, first } = await published();

		const saved = JSON.stringify(trigger.registrations());
		expect(saved).not.toContain(first);
		expect(saved).toContain(hashOf(first));
	});

	test('a test registration holds the hash too', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.listen();

		const token = await agentToken(agent.id);
		const saved = JSON.stringify(trigger.registrations('test'));
		expect(saved).not.toContain(token);
		expect(saved).toContain(hashOf(token));
	});

	test('saved in clear by an earlier version: events are accepted without writing anything, and the next start saves the hash', async () => {
		const { agent, trigger, first } = await published();
		const url = trigger.url('production');
		trigger.saveRegistrations({
			[url]: { secret: first, agentId: agent.id, previousWebhook: '', kind: 'production' },
		});

		expect(await statusWith(trigger, first)).toBe(200);
		expect(trigger.executions).toHaveLength(1);
		expect(await statusWith(trigger, 'not-the-token')).toBe(401);
		// webhook() never writes static data: the clear value stays until a registration write.
		expect(trigger.registrations()[url].secret).toBe(first);
		await sandbox.clearRequests();

		await trigger.activate('init');

		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(trigger.registrations()).toEqual({
			[url]: {
				tokenHash: hashOf(first),
				rotation: 0,
				agentId: agent.id,
				sealedPreviousWebhook: '',
				kind: 'production',
			},
		});
		expect(await statusWith(trigger, first)).toBe(200);
		expect(trigger.executions).toHaveLength(2);
	});
});
