import { randomBytes } from 'node:crypto';
import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Agent } from '../VoiceAgent/helpers/types';
import { voiceAgentApiRequest } from '../VoiceAgent/transport';

/** Query parameter of the registered URL that carries the trigger's secret. */
export const SECRET_PARAMETER = 'token';

/** What one registration (the test URL or the production URL) remembers between its hooks. */
export interface Registration extends IDataObject {
	secret: string;
	agentId: string;
	/** The webhook the agent had before this trigger took it over; '' when it had none. */
	previousWebhook: string;
}

type RegistrationStore = Record<string, Registration>;

/** Registrations by this trigger's webhook URL, in the node's static data (saved with the workflow). */
export function registrations(context: {
	getWorkflowStaticData(type: string): IDataObject;
}): RegistrationStore {
	const staticData = context.getWorkflowStaticData('node');
	staticData.registrations ??= {};
	return staticData.registrations as RegistrationStore;
}

function webhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(context.getNode(), 'n8n gave this trigger no webhook URL');
	return url;
}

function agentIdOf(context: IHookFunctions): string {
	const id = context.getNodeParameter('agent', '', { extractValue: true });
	if (typeof id !== 'string' || id.trim() === '') {
		throw new NodeOperationError(
			context.getNode(),
			'Agent must not be empty: choose the agent whose events start this workflow',
		);
	}
	return id.trim();
}

/** The agent, or undefined when it no longer exists. */
async function fetchAgent(
	context: IHookFunctions,
	id: string,
	missingIsError: boolean,
): Promise<Agent | undefined> {
	try {
		return await voiceAgentApiRequest<Agent>(context, {
			method: 'GET',
			path: '/agent',
			qs: { id },
			idempotent: true,
			notFound: `Agent "${id}"`,
		});
	} catch (error) {
		if (!missingIsError && error instanceof NodeApiError && error.httpCode === '404')
			return undefined;
		throw new NodeApiError(context.getNode(), error as JsonObject);
	}
}

/** Only one field is sent, so the upsert leaves the rest of the agent as it is. */
async function setAgentWebhook(
	context: IHookFunctions,
	agent: Agent,
	webhook: string,
): Promise<void> {
	await voiceAgentApiRequest<Agent>(context, {
		method: 'POST',
		path: '/agent',
		body: { name: agent.name, webhook },
		idempotent: true,
	});
}

/** Whether a URL registered with the agent points at this trigger (whatever secret it carries). */
function pointsAt(registered: string | undefined, url: string): boolean {
	if (!registered) return false;
	return registered === url || registered.startsWith(`${url}?`);
}

/** A URL without its query and fragment, for messages: someone else's URL may carry a secret. */
function withoutSecrets(url: string): string {
	return url.replace(/[?#].*$/, '');
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const registration = registrations(this)[url];
	if (!registration) return false;
	const agent = await fetchAgent(this, agentIdOf(this), false);
	return agent?.webhook === `${url}?${SECRET_PARAMETER}=${registration.secret}`;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const agentId = agentIdOf(this);
	const agent = (await fetchAgent(this, agentId, true)) as Agent;
	const current = agent.webhook ?? '';
	const store = registrations(this);
	const earlier = store[url];
	let previousWebhook: string;
	if (pointsAt(current, url)) {
		// Already ours from an earlier activation: keep what was there before that one.
		previousWebhook = earlier?.previousWebhook ?? '';
	} else {
		const replace = this.getNodeParameter('options.replaceExistingWebhook', false) === true;
		if (current !== '' && !replace) {
			throw new NodeOperationError(
				this.getNode(),
				`Agent "${agent.name}" already sends its events to ${withoutSecrets(current)}`,
				{
					description:
						'An agent has one webhook. Turn on the option "Replace Existing Webhook" to point it at this trigger; the previous URL is put back when the trigger is deactivated.',
				},
			);
		}
		previousWebhook = current;
	}
	const secret = randomBytes(24).toString('hex');
	await setAgentWebhook(this, agent, `${url}?${SECRET_PARAMETER}=${secret}`);
	store[url] = { secret, agentId, previousWebhook };
	return true;
}

export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const store = registrations(this);
	const registration = store[url];
	const agentId = registration?.agentId ?? agentIdOf(this);
	const agent = await fetchAgent(this, agentId, false);
	// Put the previous webhook back only while the agent still points here: if someone changed it
	// meanwhile, their choice stands. An agent deleted meanwhile has nothing left to restore.
	if (agent && pointsAt(agent.webhook, url)) {
		await setAgentWebhook(this, agent, registration?.previousWebhook ?? '');
	}
	delete store[url];
	return true;
}
