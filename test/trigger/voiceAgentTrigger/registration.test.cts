/**
 * The Voice Agent Trigger's webhook registration (webhookMethods checkExists / create / delete), run in
 * n8n-core's HookContext against the sandbox, as n8n runs them when a workflow is activated, deactivated,
 * or listens for a test event. See ./trigger.cts for what is real and what stands in for n8n.
 */
import { createAgent, getAgent } from '../../support/api.cts';
import { CHECK_ORDER_TOOL } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { useTriggers } from './trigger.cts';
import {
	agentUpserts,
	hashOf,
	openSealed,
	sealWith,
	setWebhookElsewhere,
	splitWebhook,
	tokenBits,
	useWarnings,
} from './helpers.cts';

// Calls placed here never end by themselves; the tests end them.
const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);
const warnings = useWarnings();

/** What POST /agent takes of an agent as the service answers it: every field but its id, number and times. */
function upsertFieldsOf(agent: Record<string, unknown>): Record<string, unknown> {
	const {
		id: _id,
		phone_number: _number,
		created_at: _created,
		updated_at: _updated,
		...fields
	} = agent;
	return fields;
}

const THEIR_WEBHOOK = 'https://hooks.example.com/voice?token=their-secret';

describe('activating on an agent without a webhook', () => {
	test("points the agent at this trigger's production URL with a secret token", async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		expect(await trigger.checkExists()).toBe(false);
		await sandbox.clearRequests();

		await trigger.activate();

		const { webhook } = await getAgent(sandbox, agent.id);
		const { base, params } = splitWebhook(webhook);
		expect(base).toBe(trigger.url('production'));
		expect(Object.keys(params)).toEqual(['token']);
		expect(tokenBits(params.token)).toBeGreaterThanOrEqual(128);
		expect(webhook).not.toContain(sandbox.apiKey);
		expect(await trigger.checkExists()).toBe(true);
		// One upsert, by name: the new webhook, and the agent's other fields as the service holds them.
		expect((await agentUpserts(sandbox)).map((request) => request.body)).toEqual([
			{ ...upsertFieldsOf(agent), name: 'Orders', webhook },
		]);
		expect(trigger.registrations()).toEqual({
			[trigger.url('production')]: {
				tokenHash: hashOf(params.token),
				rotation: 0,
				agentId: agent.id,
				sealedPreviousWebhook: '',
				kind: 'production',
			},
		});
	});

	test('gives every registration its own token', async () => {
		const first = await createAgent(sandbox, { name: 'First' });
		const second = await createAgent(sandbox, { name: 'Second' });
		const one = await triggers.start(first.id);
		const other = await triggers.start(second.id);

		await one.activate();
		await other.activate();

		const tokenOne = splitWebhook((await getAgent(sandbox, first.id)).webhook).params.token;
		const tokenOther = splitWebhook((await getAgent(sandbox, second.id)).webhook).params.token;
		expect(tokenOne).not.toBe(tokenOther);
	});

	test('keeps every other field of the agent: the upserts change only the webhook', async () => {
		const agent = await createAgent(sandbox, {
			name: 'Support',
			system_prompt: 'You are a friendly support agent.',
			initial_message: 'Hello, how can I help?',
			llm_model: 'service-voice',
			voice_id: 'nova',
			tools: [CHECK_ORDER_TOOL],
			filler_words: true,
			filler_words_whitelist: ['um'],
			actions: [
				{
					name: 'transfer',
					instructions: 'When asked for a human',
					forwarding_number: '+14155550100',
				},
			],
			voicemail_number: '+14155550111',
			chunking: true,
			endpointing: 300,
			voice_optimization: 2,
			smart_endpointing_threshold: 5,
			language: 'de',
			compliance_checks: [
				{ name: 'no-pii', model: 'gpt-4o', check_instructions: 'No PII', rewrite_threshold: 3 },
			],
		});
		const trigger = await triggers.start(agent.id);
		await sandbox.clearRequests();

		await trigger.activate();
		const whileActive = await getAgent(sandbox, agent.id);
		await trigger.deactivate();
		const afterwards = await getAgent(sandbox, agent.id);

		const { webhook: _during, updated_at: _u1, ...restWhileActive } = whileActive;
		const { webhook: _before, updated_at: _u2, ...restBefore } = agent;
		const { webhook: _after, updated_at: _u3, ...restAfterwards } = afterwards;
		expect(trigger.removalErrors).toEqual([]);
		expect(restWhileActive).toEqual(restBefore);
		expect(restAfterwards).toEqual(restBefore);
		expect(afterwards.webhook).toBe('');
		const bodies = (await agentUpserts(sandbox)).map((request) => request.body);
		expect(bodies).toEqual([
			{ ...upsertFieldsOf(agent), webhook: whileActive.webhook },
			{ ...upsertFieldsOf(agent), webhook: '' },
		]);
	});
});

describe('an agent whose webhook points elsewhere', () => {
	test('is refused with a clear error that does not leak their URL secret, and stays unchanged', async () => {
		const agent = await createAgent(sandbox, { name: 'Support', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id);
		await sandbox.clearRequests();

		const error = await trigger.activate().then(
			() => undefined,
			(thrown: Error & { description?: string }) => thrown,
		);

		// n8n's toasts show only the message: what to do is said there.
		expect(error?.message).toBe(
			'Agent "Support" already sends its events to https://hooks.example.com/voice. To send them to this workflow instead, ' +
				'turn on "Replace Existing Webhook" in the options of this trigger: the previous URL is put back when the workflow is unpublished or stops listening.',
		);
		expect(error?.description ?? null).toBeNull();
		expect(`${error?.message} ${error?.description}`).not.toContain('their-secret');
		expect(await getAgent(sandbox, agent.id)).toEqual(agent);
		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(trigger.registrations()).toEqual({});
	});

	test('is taken over with "Replace Existing Webhook", and given back its URL on deactivation', async () => {
		const agent = await createAgent(sandbox, { name: 'Support', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id);
		await expect(trigger.activate()).rejects.toThrow('already sends its events');

		// The user turns the option on and activates again.
		trigger.setParameters({
			agent: trigger.nodeParameters.agent,
			options: { replaceExistingWebhook: true },
		});
		await trigger.activate();

		const { webhook } = await getAgent(sandbox, agent.id);
		expect(splitWebhook(webhook).base).toBe(trigger.url('production'));
		expect(await trigger.checkExists()).toBe(true);

		await trigger.deactivate();

		expect(trigger.removalErrors).toEqual([]);
		expect((await getAgent(sandbox, agent.id)).webhook).toBe(THEIR_WEBHOOK);
		expect(trigger.registrations()).toEqual({});
	});

	test("of another workflow's trigger is refused too: one workflow cannot silently take another's agent", async () => {
		const agent = await createAgent(sandbox, { name: 'Support' });
		const first = await triggers.start(agent.id);
		await first.activate();
		const registered = await getAgent(sandbox, agent.id);
		const second = await triggers.start(agent.id);

		await expect(second.activate()).rejects.toThrow(
			`already sends its events to ${first.url('production')}`,
		);

		expect(await getAgent(sandbox, agent.id)).toEqual(registered);
		expect(await first.checkExists()).toBe(true);
	});
});

describe('the webhook a trigger replaced', () => {
	/** A published trigger that took the agent over from THEIR_WEBHOOK. */
	async function replacing() {
		const agent = await createAgent(sandbox, { name: 'Support', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();
		return { agent, trigger, url: trigger.url('production') };
	}

	test("is kept sealed: the workflow's static data (and so its export) holds neither its URL nor its token", async () => {
		const { trigger, url } = await replacing();

		const saved = trigger.registrations()[url];
		expect(JSON.stringify(trigger.registrations())).not.toContain('their-secret');
		expect(JSON.stringify(trigger.registrations())).not.toContain('hooks.example.com');
		expect(saved.previousWebhook).toBeUndefined();
		// AES-256-GCM under a key derived from the credential's API key: only that key opens it.
		expect(openSealed(sandbox.apiKey, url, saved.sealedPreviousWebhook ?? '')).toBe(THEIR_WEBHOOK);
		expect(openSealed('another-api-key', url, saved.sealedPreviousWebhook ?? '')).toBeUndefined();
		// Bound to this registration: it does not open as another URL's.
		expect(
			openSealed(sandbox.apiKey, trigger.url('test'), saved.sealedPreviousWebhook ?? ''),
		).toBeUndefined();
	});

	test('the same URL is sealed the same way by every registration (every main), so static data does not change', async () => {
		const { trigger, url } = await replacing();
		const first = trigger.registrations()[url].sealedPreviousWebhook;

		await trigger.deactivate();
		await trigger.activate();

		expect(trigger.registrations()[url].sealedPreviousWebhook).toBe(first);
	});

	test('saved in clear by an earlier version: the next registration write seals it, and unpublishing puts it back', async () => {
		const { agent, trigger, url } = await replacing();
		const { sealedPreviousWebhook, ...rest } = trigger.registrations()[url];
		expect(sealedPreviousWebhook).toMatch(/^v1\./);
		trigger.saveRegistrations({ [url]: { ...rest, previousWebhook: THEIR_WEBHOOK } });
		await sandbox.clearRequests();

		await trigger.activate('init');

		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(trigger.registrations()[url]).toEqual({ ...rest, sealedPreviousWebhook });
		await trigger.deactivate();
		expect((await getAgent(sandbox, agent.id)).webhook).toBe(THEIR_WEBHOOK);
	});

	test("sealed with an API key the credential no longer has: unpublishing empties the agent's webhook (never a wrong URL) and says so in the log", async () => {
		const { agent, trigger, url } = await replacing();
		const saved = trigger.registrations()[url];
		trigger.saveRegistrations({
			[url]: {
				...saved,
				sealedPreviousWebhook: sealWith('the-previous-api-key', url, THEIR_WEBHOOK),
			},
		});

		await trigger.deactivate();

		expect(trigger.removalErrors).toEqual([]);
		expect((await getAgent(sandbox, agent.id)).webhook).toBe('');
		expect(trigger.registrations()).toEqual({});
		expect(warnings.messages()).toEqual([
			"Voice Agent Trigger could not put back the agent's previous webhook: it was saved with another API key of the credential. The agent's webhook is now empty; set it again (in the service, or with Agent → Create or Update).",
		]);
	});
});

describe('checkExists', () => {
	test('is false before the trigger was ever activated, even when the agent has a webhook', async () => {
		const agent = await createAgent(sandbox, { name: 'Support', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id);

		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.checkExists('test')).toBe(false);
	});

	test('is false once someone else changed the webhook, and activating again then refuses to take it back', async () => {
		const agent = await createAgent(sandbox, { name: 'Support' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		expect(await trigger.checkExists()).toBe(true);

		await setWebhookElsewhere(sandbox, 'Support', 'https://other.example.com/hook');

		expect(await trigger.checkExists()).toBe(false);
		await expect(trigger.activate('init')).rejects.toThrow(
			'already sends its events to https://other.example.com/hook',
		);
		expect((await getAgent(sandbox, agent.id)).webhook).toBe('https://other.example.com/hook');
	});

	test('is false once the agent was deleted', async () => {
		const agent = await createAgent(sandbox, { name: 'Support' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();

		await sandbox.api('DELETE', '/agent', { query: { id: agent.id } });

		expect(await trigger.checkExists()).toBe(false);
	});
});

describe('deactivating', () => {
	test('empties the webhook the agent did not have before, and forgets the registration', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();

		await expect(trigger.delete()).resolves.toBe(true);

		expect((await getAgent(sandbox, agent.id)).webhook).toBe('');
		expect(await trigger.checkExists()).toBe(false);
		expect(trigger.registrations()).toEqual({});
	});

	test('after the agent was deleted through the API is not an error', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		await sandbox.api('DELETE', '/agent', { query: { id: agent.id } });
		await sandbox.clearRequests();

		await expect(trigger.delete()).resolves.toBe(true);

		expect(trigger.registrations()).toEqual({});
		// Nothing was recreated under the agent's name.
		expect(await agentUpserts(sandbox)).toEqual([]);
		expect((await sandbox.api('GET', '/agents', { query: { limit: 100 } })).body.agents).toEqual(
			[],
		);
	});

	test('leaves a webhook someone else set meanwhile as it is', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();
		await setWebhookElsewhere(sandbox, 'Orders', 'https://other.example.com/hook');
		await sandbox.clearRequests();

		await expect(trigger.delete()).resolves.toBe(true);

		expect((await getAgent(sandbox, agent.id)).webhook).toBe('https://other.example.com/hook');
		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(trigger.registrations()).toEqual({});
	});
});

describe('changing the agent of an active workflow', () => {
	test('gives the old agent its webhook back and registers on the new one', async () => {
		const first = await createAgent(sandbox, { name: 'First', webhook: THEIR_WEBHOOK });
		const second = await createAgent(sandbox, { name: 'Second' });
		const trigger = await triggers.start(first.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();

		// Publishing the changed workflow: n8n removes the active version's webhooks, then adds the new ones.
		await trigger.deactivate();
		trigger.setParameters({ agent: rl(second.id) });
		await trigger.activate('update');

		expect(trigger.removalErrors).toEqual([]);
		expect((await getAgent(sandbox, first.id)).webhook).toBe(THEIR_WEBHOOK);
		expect(splitWebhook((await getAgent(sandbox, second.id)).webhook).base).toBe(
			trigger.url('production'),
		);
		expect(trigger.registrations()[trigger.url('production')]).toMatchObject({
			agentId: second.id,
			sealedPreviousWebhook: '',
		});
	});
});

describe('a credential the service rejects', () => {
	test('activation fails saying the API key was rejected, and the agent is unchanged', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id, {}, { credentials: { apiKey: 'not-a-key' } });

		await expect(trigger.activate()).rejects.toThrow(
			'The Voice Agent API rejected the API key (401 Unauthorized)',
		);

		expect(await getAgent(sandbox, agent.id)).toEqual(agent);
		expect(trigger.registrations()).toEqual({});
	});
});

describe('the agent parameter', () => {
	test('empty: activation fails with a message that says to choose the agent', async () => {
		const trigger = await triggers.start('');

		await expect(trigger.activate()).rejects.toThrow(
			'Agent must not be empty: choose the agent whose events start this workflow',
		);
	});

	test('by name: the agent of that name is registered, and its ID is what deactivation uses', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		await createAgent(sandbox, { name: 'Returns' });
		const trigger = await triggers.start('', { agent: rl('Orders', 'name') });

		await trigger.activate();

		const { webhook } = await getAgent(sandbox, agent.id);
		expect(splitWebhook(webhook).base).toBe(trigger.url('production'));
		expect(trigger.registrations()[trigger.url('production')].agentId).toBe(agent.id);
		await trigger.deactivate();
		expect((await getAgent(sandbox, agent.id)).webhook).toBe('');
	});

	test('by a name no agent has: activation fails naming it, and nothing is registered', async () => {
		await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start('', { agent: rl('Order', 'name') });

		await expect(trigger.activate()).rejects.toThrow('No agent is named "Order"');
		expect(trigger.registrations()).toEqual({});
	});

	test('an agent that does not exist: activation fails saying it was not found', async () => {
		const trigger = await triggers.start('agt_0000000000000000');

		await expect(trigger.activate()).rejects.toThrow('Agent "agt_0000000000000000" was not found');
		expect(trigger.registrations()).toEqual({});
	});
});
