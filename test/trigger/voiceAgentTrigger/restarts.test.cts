/**
 * Registration where teams run n8n at scale: every main runs checkExists / create when it starts, and
 * the leader when a workflow is published, each on the static data it read from the database, which
 * it then saves whole. Several mains starting together are several activations that read the same
 * saved state and save over each other, run here at the same time in n8n-core's HookContext against
 * the sandbox. What matters is that the agent and the saved state agree on one token afterwards (the
 * state saves its hash), so that events are accepted. See ./trigger.cts for what stands in for n8n.
 */
import { createAgent, getAgent } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { post, useTriggers, type TriggerHarness } from './trigger.cts';
import { agentUpserts, hashOf, setWebhookElsewhere, splitWebhook } from './helpers.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);

/**
 * The agent's token, the saved hash of the token, and how n8n answers an event sent to the agent's webhook as
 * the service sends it.
 */
async function agreement(trigger: TriggerHarness, agentId: string) {
	const webhook: string = (await getAgent(sandbox, agentId)).webhook;
	const saved = trigger.registrations()[trigger.url('production')];
	const event = { event_type: 'call_started', call_id: 'call_1', timestamp: 't', data: {} };
	const answer = await post(webhook, JSON.stringify(event));
	return {
		base: splitWebhook(webhook).base,
		agentToken: splitWebhook(webhook).params.token,
		savedHash: saved?.tokenHash,
		savedInClear: saved?.secret,
		delivery: answer.status,
	};
}

describe('several n8n mains registering the same trigger at once', () => {
	test('converge on one token: the agent and the saved state agree, and events are accepted', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await sandbox.clearRequests();

		await Promise.all([
			trigger.activate('init'),
			trigger.activate('init'),
			trigger.activate('init'),
		]);

		const state = await agreement(trigger, agent.id);
		expect(state.base).toBe(trigger.url('production'));
		expect(state.savedHash).toBe(hashOf(state.agentToken));
		expect(state.delivery).toBe(200);
		expect(trigger.executions).toHaveLength(1);
		// Every main sent the same URL.
		const sent = (await agentUpserts(sandbox)).map(
			(request) => (request.body as { webhook: string }).webhook,
		);
		expect(new Set(sent)).toEqual(new Set([`${state.base}?token=${state.agentToken}`]));
	});

	test('publishing again later registers the same URL: the token belongs to the URL and the API key', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		const first = (await getAgent(sandbox, agent.id)).webhook;

		await trigger.deactivate();
		await trigger.activate();

		expect((await getAgent(sandbox, agent.id)).webhook).toBe(first);
	});
});

describe('a main starting again', () => {
	test('with the registration saved: checks the agent and sends nothing', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		const registered = await getAgent(sandbox, agent.id);
		const saved = trigger.registrations();
		await sandbox.clearRequests();

		await trigger.activate('init');

		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(await getAgent(sandbox, agent.id)).toEqual(registered);
		expect(trigger.registrations()).toEqual(saved);
	});

	test('a registration an earlier version saved in clear: a start keeps its token, sends nothing, and saves the hash instead', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		const url = trigger.url('production');
		// As an earlier version registered it: a token of its own, in clear in the saved state.
		await setWebhookElsewhere(sandbox, 'Orders', `${url}?token=kept-from-an-earlier-version`);
		trigger.saveRegistrations({
			[url]: {
				secret: 'kept-from-an-earlier-version',
				agentId: agent.id,
				previousWebhook: '',
				kind: 'production',
			},
		});
		await sandbox.clearRequests();

		await trigger.activate('init');

		expect(await agentUpserts(sandbox)).toEqual([]);
		const state = await agreement(trigger, agent.id);
		expect(state.agentToken).toBe('kept-from-an-earlier-version');
		expect(state.savedHash).toBe(hashOf('kept-from-an-earlier-version'));
		expect(state.savedInClear).toBeUndefined();
		expect(JSON.stringify(trigger.registrations())).not.toContain('kept-from-an-earlier-version');
		expect(state.delivery).toBe(200);
	});

	test('after the saved registration was lost: sends nothing, saves it again, and events are accepted', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		trigger.saveRegistrations({});
		await sandbox.clearRequests();

		await trigger.activate('init');

		expect(await agentUpserts(sandbox)).toEqual([]);
		const state = await agreement(trigger, agent.id);
		expect(state.savedHash).toBe(hashOf(state.agentToken));
		expect(state.delivery).toBe(200);
	});

	test('where the agent and the saved state disagree (as a race could leave them): registers again, and both agree afterwards', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		const url = trigger.url('production');
		await setWebhookElsewhere(sandbox, 'Orders', `${url}?token=written-by-one-main`);
		trigger.saveRegistrations({
			[url]: {
				secret: 'saved-by-another-main',
				agentId: agent.id,
				previousWebhook: '',
				kind: 'production',
			},
		});

		await trigger.activate('init');

		const state = await agreement(trigger, agent.id);
		expect(state.base).toBe(url);
		expect(state.savedHash).toBe(hashOf(state.agentToken));
		expect(state.agentToken).not.toMatch(/main$/);
		expect(state.delivery).toBe(200);
		const event = JSON.stringify({ event_type: 'call_started', call_id: 'call_x', data: {} });
		for (const stale of ['written-by-one-main', 'saved-by-another-main']) {
			expect((await post(`${url}?token=${stale}`, event)).status).toBe(401);
		}
	});
});
