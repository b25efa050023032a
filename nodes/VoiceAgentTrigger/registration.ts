import type { IHookFunctions } from 'n8n-workflow';

import { findAgentWithToken, getAgentWithToken, upsertAgent } from '../shared/api/agents';
import { configurationError } from '../shared/errors';
import { readOptionalAgentId } from '../shared/parameters/agent';
import type { RequestOptions } from '../shared/transport/types';
import type { Agent } from '../shared/types';
import { openWebhook, sealWebhook } from './previousWebhook';
import {
	isLegacy,
	isTokenOf,
	registrations,
	writableRegistrations,
	type Registration,
	type RegistrationKind,
	type SavedRegistration,
} from './registrationStore';
import { hashToken, readTokenRotation, TOKEN_PARAMETER, tokenFor, tokenOf } from './webhookToken';

/** Registration runs when a workflow is published or n8n starts: fail fast and say why. */
const ACTIVATION: RequestOptions = { purpose: 'activation' };

function webhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url)
		throw configurationError(context.getNode(), {
			message: 'n8n gave this trigger no webhook URL',
		});
	return url;
}

async function agentIdOf(context: IHookFunctions): Promise<string> {
	const agentId = await readOptionalAgentId(context, { request: ACTIVATION });
	if (agentId !== undefined) return agentId;
	throw configurationError(context.getNode(), {
		message: 'Agent must not be empty: choose the agent whose events start this workflow',
	});
}

/**
 * Only the webhook changes: the rest of the agent is sent back as the service holds it (a service that
 * replaces a whole agent on update, as the live one does, would wipe it otherwise).
 */
async function setAgentWebhook(
	context: IHookFunctions,
	agent: Agent,
	webhook: string,
): Promise<void> {
	await upsertAgent(context, { name: agent.name, webhook }, { ...ACTIVATION, current: agent });
}

/** A URL without its query and fragment. */
function withoutQuery(url: string): string {
	return url.replace(/[?#].*$/, '');
}

/**
 * The URLs this trigger owns: the one of this registration, and the other one n8n gives the same
 * node (its test URL while this is the production one, and the other way round). Both are on the
 * same host and end with the node's webhook ID, which n8n makes unique per trigger node; a workflow
 * imported into another n8n keeps that ID, so the host counts too.
 */
class OwnUrls {
	private constructor(
		readonly url: string,
		private readonly origin: string,
		private readonly suffix: string | undefined,
	) {}

	static of(context: IHookFunctions): OwnUrls {
		const url = webhookUrl(context);
		const { origin, pathname } = new URL(url);
		const { webhookId } = context.getNode();
		const suffix = webhookId ? `/${webhookId}/${pathname.split('/').pop()}` : undefined;
		return new OwnUrls(url, origin, suffix);
	}

	/** Whether a registered webhook points at this very URL, whatever token it carries. */
	isThis(registered: string | undefined): boolean {
		return registered !== undefined && withoutQuery(registered) === this.url;
	}

	/** Whether a registered webhook points at either URL of this trigger. */
	isOurs(registered: string | undefined): boolean {
		if (!registered) return false;
		if (this.isThis(registered)) return true;
		const address = withoutQuery(registered);
		return (
			this.suffix !== undefined &&
			address.startsWith(`${this.origin}/`) &&
			address.endsWith(this.suffix)
		);
	}

	with(token: string): string {
		return `${this.url}?${TOKEN_PARAMETER}=${token}`;
	}
}

function refusal(context: IHookFunctions, agent: Agent, current: string) {
	return configurationError(context.getNode(), {
		message:
			`Agent "${agent.name}" already sends its events to ${withoutQuery(current)}. ` +
			'To send them to this workflow instead, turn on "Replace Existing Webhook" in the options of this trigger: ' +
			'the previous URL is put back when the workflow is unpublished or stops listening.',
	});
}

/**
 * A registration saved in clear by an earlier version answers false, so that `create` saves it again
 * hashed (sending nothing when the agent already holds its URL).
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const own = OwnUrls.of(this);
	const registration = registrations(this)[own.url];
	if (!registration || isLegacy(registration)) return false;
	if (registration.rotation !== readTokenRotation(this)) return false;
	const agent = await findAgentWithToken(this, await agentIdOf(this), ACTIVATION);
	const token = tokenOf(agent?.webhook);
	return (
		token !== undefined && agent?.webhook === own.with(token) && isTokenOf(registration, token)
	);
}

/**
 * Points the agent at this URL. Idempotent: when the agent already holds the URL with the token
 * this trigger keeps (or would make), nothing is sent. The agent's previous webhook is remembered
 * to be put back later, but never one of this trigger's own URLs, except that listening for a test
 * event on a published workflow puts the production URL back when it ends.
 */
export async function create(this: IHookFunctions): Promise<boolean> {
	const own = OwnUrls.of(this);
	const kind: RegistrationKind = this.getMode() === 'manual' ? 'test' : 'production';
	const agentId = await agentIdOf(this);
	const rotation = readTokenRotation(this);
	const agent = await getAgentWithToken(this, agentId, ACTIVATION);
	const current = agent.webhook ?? '';
	const store = await writableRegistrations(this);
	const earlier = store[own.url]?.agentId === agentId ? store[own.url] : undefined;

	let sealedPreviousWebhook: string;
	if (!own.isOurs(current)) {
		const replace = this.getNodeParameter('options.replaceExistingWebhook', false) === true;
		if (current !== '' && !replace) throw refusal(this, agent, current);
		sealedPreviousWebhook = await sealWebhook(this, own.url, current);
	} else if (kind === 'test' && !own.isThis(current)) {
		// Listening for a test event on a published workflow: the production URL comes back afterwards.
		sealedPreviousWebhook = await sealWebhook(this, own.url, current);
	} else {
		// This URL from an earlier registration, or a test URL left behind by a restart of n8n.
		sealedPreviousWebhook = earlier?.sealedPreviousWebhook ?? '';
	}

	// A token the agent holds from this registration stays (one an earlier version made, too) until
	// the user changes Token Rotation; otherwise the derived one, the same on every main.
	const held = tokenOf(current);
	const token =
		earlier &&
		held !== undefined &&
		current === own.with(held) &&
		isTokenOf(earlier, held) &&
		earlier.rotation === rotation
			? held
			: await tokenFor(this, own.url, rotation);
	if (current !== own.with(token)) await setAgentWebhook(this, agent, own.with(token));
	const registration: Registration = {
		tokenHash: hashToken(token),
		rotation,
		agentId,
		sealedPreviousWebhook,
		kind,
	};
	if (!sameRegistration(store[own.url], registration)) store[own.url] = registration;
	return true;
}

/** Static data changes (and is saved) only when the registration does. */
function sameRegistration(saved: SavedRegistration | undefined, wanted: Registration): boolean {
	if (!saved) return false;
	const keys = new Set([...Object.keys(saved), ...Object.keys(wanted)]);
	return [...keys].every((key) => saved[key] === wanted[key]);
}

const UNOPENABLE =
	"Voice Agent Trigger could not put back the agent's previous webhook: it was saved with another API key of the credential. The agent's webhook is now empty; set it again (in the service, or with Agent → Create or Update).";

/**
 * Puts the agent's previous webhook back while the agent still points at this trigger: if someone
 * changed it meanwhile, their choice stands. Unpublishing also ends a test URL left behind, so the
 * agent never stays on a URL nobody serves; a test registration only gives back its own URL.
 */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const own = OwnUrls.of(this);
	const store = await writableRegistrations(this);
	const registration = store[own.url];
	const agentId = registration?.agentId ?? (await agentIdOf(this));
	const agent = await findAgentWithToken(this, agentId, ACTIVATION);
	const pointsHere =
		registration?.kind === 'production' ? own.isOurs(agent?.webhook) : own.isThis(agent?.webhook);
	// An agent deleted meanwhile has nothing left to restore.
	if (agent && pointsHere) {
		const previous = await openWebhook(this, own.url, registration?.sealedPreviousWebhook ?? '');
		// Sealed with another API key: the URL cannot be known, so none is guessed and the agent gets
		// none (it would otherwise keep a URL nobody serves), and the log says what to do.
		if (previous === undefined)
			this.logger.warn(UNOPENABLE, { agentId, node: this.getNode().name });
		await setAgentWebhook(this, agent, previous ?? '');
	}
	delete store[own.url];
	return true;
}
