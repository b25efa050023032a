import { randomBytes } from 'node:crypto';
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { findAgent, getAgent, upsertAgent } from '../shared/api';
import { resolveAgentId, type AgentLocatorValue } from '../shared/resolveAgent';
import type { RequestOptions } from '../shared/transport';
import type { Agent } from '../shared/types';

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

type StaticDataHolder = { getWorkflowStaticData(type: string): IDataObject };

/**
 * Registrations by this trigger's webhook URL, in the node's static data (saved with the workflow).
 * Only read here: the webhook path must never write static data, or n8n would save it over what a
 * main process saved meanwhile.
 */
export function registrations(context: StaticDataHolder): Readonly<RegistrationStore> {
	return (context.getWorkflowStaticData('node').registrations ?? {}) as RegistrationStore;
}

/** The registrations for the webhook methods, which change them. */
function writableRegistrations(context: StaticDataHolder): RegistrationStore {
	const staticData = context.getWorkflowStaticData('node');
	staticData.registrations ??= {};
	return staticData.registrations as RegistrationStore;
}

/** Registration runs when a workflow is published or n8n starts: fail fast and say why. */
const ACTIVATION: RequestOptions = { purpose: 'activation' };

function webhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(context.getNode(), 'n8n gave this trigger no webhook URL');
	return url;
}

async function agentIdOf(context: IHookFunctions): Promise<string> {
	const agent = context.getNodeParameter('agent', {}) as AgentLocatorValue;
	if (typeof agent.value !== 'string' || agent.value.trim() === '') {
		throw new NodeOperationError(
			context.getNode(),
			'Agent must not be empty: choose the agent whose events start this workflow',
		);
	}
	return await resolveAgentId(context, agent, { request: ACTIVATION });
}

/** Only one field is sent, so the upsert leaves the rest of the agent as it is. */
async function setAgentWebhook(
	context: IHookFunctions,
	agent: Agent,
	webhook: string,
): Promise<void> {
	await upsertAgent(context, { name: agent.name, webhook }, ACTIVATION);
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
	const agent = await findAgent(this, await agentIdOf(this), ACTIVATION);
	return agent?.webhook === `${url}?${SECRET_PARAMETER}=${registration.secret}`;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const agentId = await agentIdOf(this);
	const agent = await getAgent(this, agentId, ACTIVATION);
	const current = agent.webhook ?? '';
	const store = writableRegistrations(this);
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
	const store = writableRegistrations(this);
	const registration = store[url];
	const agentId = registration?.agentId ?? (await agentIdOf(this));
	const agent = await findAgent(this, agentId, ACTIVATION);
	// Put the previous webhook back only while the agent still points here: if someone changed it
	// meanwhile, their choice stands. An agent deleted meanwhile has nothing left to restore.
	if (agent && pointsAt(agent.webhook, url)) {
		await setAgentWebhook(this, agent, registration?.previousWebhook ?? '');
	}
	delete store[url];
	return true;
}
