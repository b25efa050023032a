/**
 * "Listen for test event": the trigger's test URL, in n8n-core's HookContext against the sandbox, as n8n
 * registers it beside the production URL of a published workflow, and after n8n restarted while it
 * listened (test registrations live in the main's memory only). See ./trigger.cts.
 */
import { createAgent, getAgent, placeCall } from '../../support/api.cts';
import { post, useTriggers } from './trigger.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { agentUpserts, hashOf, openSealed, splitWebhook, tokenBits } from './helpers.cts';

// Calls placed here never end by themselves; the tests end them.
const sandbox = useSandbox({ callDurationMs: 3_600_000, webhookRetryDelayMs: 20 });
const triggers = useTriggers(sandbox);

const THEIR_WEBHOOK = 'https://hooks.example.com/voice?token=their-secret';

/** Has the sandbox send one event of the call to whatever webhook its agent holds now. */
async function sendEvent(callId: string) {
	const { body } = await sandbox.control('POST', `/calls/${callId}/events`, {
		event_type: 'call_started',
	});
	return body as { url: string; status: number };
}

const webhookOf = async (agentId: string): Promise<string> =>
	(await getAgent(sandbox, agentId)).webhook;

describe('listening for a test event', () => {
	test('registers and unregisters by the same rules as the production URL', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);

		await trigger.listen();

		const { base, params } = splitWebhook(await webhookOf(agent.id));
		expect(base).toBe(trigger.url('test'));
		expect(tokenBits(params.token)).toBeGreaterThanOrEqual(128);
		expect(await trigger.checkExists('test')).toBe(true);
		expect(await trigger.checkExists('production')).toBe(false);

		await trigger.stopListening();

		expect(await webhookOf(agent.id)).toBe('');
		expect(trigger.registrations('test')).toEqual({});
	});

	test('on a published workflow: takes the agent over for the test without any option, and puts the production URL back after the event', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		const production = await webhookOf(agent.id);

		await trigger.listen();

		const testWebhook = await webhookOf(agent.id);
		expect(splitWebhook(testWebhook).base).toBe(trigger.url('test'));
		// n8n keeps the test registration apart from the workflow's saved static data.
		expect(trigger.registrations('test')).toEqual({
			[trigger.url('test')]: {
				tokenHash: hashOf(splitWebhook(testWebhook).params.token),
				rotation: 0,
				agentId: agent.id,
				sealedPreviousWebhook: expect.stringMatching(/^v1\./),
				kind: 'test',
			},
		});
		// The production URL to put back is sealed: its token is not in the test registration.
		const sealed = trigger.registrations('test')[trigger.url('test')].sealedPreviousWebhook ?? '';
		expect(sealed).not.toContain(splitWebhook(production).params.token);
		expect(openSealed(sandbox.apiKey, trigger.url('test'), sealed)).toBe(production);
		expect(Object.keys(trigger.registrations('production'))).toEqual([trigger.url('production')]);

		expect(await sendEvent(call.id)).toMatchObject({ url: testWebhook, status: 200 });
		// After its one event n8n removes the test webhook: the production URL is back.
		await trigger.idle();
		expect(await webhookOf(agent.id)).toBe(production);
		expect(await trigger.checkExists('production')).toBe(true);

		expect(await sendEvent(call.id)).toMatchObject({ url: production, status: 200 });
		expect(trigger.executions.map((execution) => execution.kind)).toEqual(['test', 'production']);

		await trigger.deactivate();

		expect(trigger.removalErrors).toEqual([]);
		expect(await webhookOf(agent.id)).toBe('');
		expect(trigger.registrations('production')).toEqual({});
	});

	test('on a published workflow that took over another webhook: the test changes nothing of what unpublishing gives back', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();
		const production = await webhookOf(agent.id);

		await trigger.listen();
		await trigger.stopListening();

		expect(await webhookOf(agent.id)).toBe(production);
		await trigger.deactivate();
		expect(await webhookOf(agent.id)).toBe(THEIR_WEBHOOK);
	});

	test('stopping to listen before any event gives the agent back too', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.listen();
		expect(splitWebhook(await webhookOf(agent.id)).base).toBe(trigger.url('test'));

		await trigger.stopListening();

		expect(await webhookOf(agent.id)).toBe(THEIR_WEBHOOK);
	});

	test('an agent with a webhook of someone else is refused for the test too, saying what to turn on', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id);

		await expect(trigger.listen()).rejects.toThrow(
			'already sends its events to https://hooks.example.com/voice. To send them to this workflow instead, turn on "Replace Existing Webhook"',
		);

		expect(await webhookOf(agent.id)).toBe(THEIR_WEBHOOK);
		expect(trigger.listening).toBe(false);
	});

	test('each URL takes only its own token: the production token does not open the test URL, nor the test token the production URL', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const call = await placeCall(sandbox, agent);
		const trigger = await triggers.start(agent.id);
		await trigger.activate();
		const productionToken = splitWebhook(await webhookOf(agent.id)).params.token;
		await trigger.listen();
		const testToken = splitWebhook(await webhookOf(agent.id)).params.token;
		expect(testToken).not.toBe(productionToken);
		const event = JSON.stringify({ event_type: 'call_started', call_id: call.id, data: {} });

		const crossed = [
			await post(`${trigger.url('test')}?token=${productionToken}`, event),
			await post(`${trigger.url('production')}?token=${testToken}`, event),
		];

		expect(crossed.map((answer) => answer.status)).toEqual([401, 401]);
		expect(trigger.executions).toEqual([]);
	});
});

describe('a test URL left behind when n8n restarted while listening', () => {
	test('publishing takes the agent over without any option, and never keeps the test URL as the webhook to give back', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.listen();
		trigger.restart();
		expect(splitWebhook(await webhookOf(agent.id)).base).toBe(trigger.url('test'));

		await trigger.activate();

		expect(splitWebhook(await webhookOf(agent.id)).base).toBe(trigger.url('production'));
		expect(trigger.registrations()[trigger.url('production')].sealedPreviousWebhook).toBe('');
		await trigger.deactivate();
		expect(await webhookOf(agent.id)).toBe('');
	});

	test('on a published workflow, n8n starting again takes the agent back; unpublishing then gives back the webhook it had before', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();
		const production = await webhookOf(agent.id);
		await trigger.listen();
		trigger.restart();

		await trigger.activate('init');

		expect(await webhookOf(agent.id)).toBe(production);
		await trigger.deactivate();
		expect(await webhookOf(agent.id)).toBe(THEIR_WEBHOOK);
	});

	test('unpublishing while the agent still points at it gives back the webhook from before publishing', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders', webhook: THEIR_WEBHOOK });
		const trigger = await triggers.start(agent.id, { options: { replaceExistingWebhook: true } });
		await trigger.activate();
		await trigger.listen();
		trigger.restart();

		await trigger.deactivate();

		expect(trigger.removalErrors).toEqual([]);
		expect(await webhookOf(agent.id)).toBe(THEIR_WEBHOOK);
	});

	test('listening again recognises it as its own: no option needed, nothing sent, and it ends empty', async () => {
		const agent = await createAgent(sandbox, { name: 'Orders' });
		const trigger = await triggers.start(agent.id);
		await trigger.listen();
		const left = await webhookOf(agent.id);
		trigger.restart();
		await sandbox.clearRequests();

		await trigger.listen();

		expect(await webhookOf(agent.id)).toBe(left);
		expect(await agentUpserts(sandbox)).toEqual([]);
		expect(trigger.registrations('test')[trigger.url('test')].sealedPreviousWebhook).toBe('');
		await trigger.stopListening();
		expect(await webhookOf(agent.id)).toBe('');
	});
});
