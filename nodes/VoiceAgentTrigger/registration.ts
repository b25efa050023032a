import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { findAgentWithToken, getAgentWithToken, upsertAgent } from '../shared/api/agents';
import { configurationError } from '../shared/errors';
import { readOptionalAgentId } from '../shared/parameters/agent';
import type { RequestOptions } from '../shared/transport/types';
import type { Agent } from '../shared/types';
import {
	hashToken,
	readTokenRotation,
	TOKEN_PARAMETER,
	tokenFor,
	tokenMatches,
	tokenOf,
} from './webhookToken';

type RegistrationKind = 'production' | 'test';

/** What one registration (the test URL or the production URL) remembers between its hooks. */
export interface Registration extends IDataObject {
	/** SHA-256 of the URL's token: the token itself is only in the agent's webhook. */
	tokenHash: string;
	/** The Token Rotation the token was derived with. */
	rotation: number;
	agentId: string;
	/**
	 * The webhook the agent had before this trigger took it over ('' when it had none), whole, so it can
	 * be put back: another receiver's URL keeps whatever secret it carries.
	 */
	previousWebhook: string;
	kind: RegistrationKind;
}

/** As versions before hashing saved it: the token in clear, no rotation. */
interface LegacyRegistration extends IDataObject {
	secret: string;
	agentId: string;
	previousWebhook: string;
	kind: RegistrationKind;
}

type SavedRegistration = Registration | LegacyRegistration;

type RegistrationStore = Record<string, SavedRegistration>;

function isLegacy(saved: SavedRegistration): saved is LegacyRegistration {
	return typeof saved.secret === 'string';
}

/** Whether a token (as received or as the agent holds it) is the one a registration saved. */
export function isTokenOf(saved: SavedRegistration, token: string): boolean {
	return isLegacy(saved)
		? tokenMatches(token, hashToken(saved.secret))
		: tokenMatches(token, saved.tokenHash);
}

type StaticDataHolder = { getWorkflowStaticData(type: string): IDataObject };

/**
 * Registrations by this trigger's webhook URL, in the node's static data (saved with the workflow).
 * Only read here: the webhook path must never write static data, or n8n would save it over what a
 * main process saved meanwhile.
 */
export function registrations(context: StaticDataHolder): Readonly<RegistrationStore> {
	return (context.getWorkflowStaticData('node').registrations ?? {}) as RegistrationStore;
}

/**
 * The registrations for the webhook methods, which change them. Tokens an earlier version saved in
 * clear are replaced by their hash here, so they leave static data at the next registration write.
 */
function writableRegistrations(context: StaticDataHolder): RegistrationStore {
	const staticData = context.getWorkflowStaticData('node');
	staticData.registrations ??= {};
	const store = staticData.registrations as RegistrationStore;
	for (const [url, saved] of Object.entries(store)) {
		if (!isLegacy(saved)) continue;
		const { secret, ...rest } = saved;
		store[url] = { ...rest, tokenHash: hashToken(secret), rotation: 0 };
	}
	return store;
}

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

/** Only one field is sent, so the upsert leaves the rest of the agent as it is. */
async function setAgentWebhook(
	context: IHookFunctions,
	agent: Agent,
	webhook: string,
): Promise<void> {
	await upsertAgent(context, { name: agent.name, webhook }, ACTIVATION);
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
	const store = writableRegistrations(this);
	const earlier = store[own.url]?.agentId === agentId ? store[own.url] : undefined;

	let previousWebhook: string;
	if (!own.isOurs(current)) {
		const replace = this.getNodeParameter('options.replaceExistingWebhook', false) === true;
		if (current !== '' && !replace) throw refusal(this, agent, current);
		previousWebhook = current;
	} else if (kind === 'test' && !own.isThis(current)) {
		// Listening for a test event on a published workflow: the production URL comes back afterwards.
		previousWebhook = current;
	} else {
		// This URL from an earlier registration, or a test URL left behind by a restart of n8n.
		previousWebhook = earlier?.previousWebhook ?? '';
	}

	// A token the agent holds from this registration stays (one an earlier version made, too) until
	// the user changes Token Rotation; otherwise the derived one, the same on every main.
	const held = tokenOf(current);
	const earlierRotation = earlier && !isLegacy(earlier) ? earlier.rotation : 0;
	const token =
		earlier &&
		held !== undefined &&
		current === own.with(held) &&
		isTokenOf(earlier, held) &&
		earlierRotation === rotation
			? held
			: await tokenFor(this, own.url, rotation);
	if (current !== own.with(token)) await setAgentWebhook(this, agent, own.with(token));
	const registration: Registration = {
		tokenHash: hashToken(token),
		rotation,
		agentId,
		previousWebhook,
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

/**
 * Puts the agent's previous webhook back while the agent still points at this trigger: if someone
 * changed it meanwhile, their choice stands. Unpublishing also ends a test URL left behind, so the
 * agent never stays on a URL nobody serves; a test registration only gives back its own URL.
 */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const own = OwnUrls.of(this);
	const store = writableRegistrations(this);
	const registration = store[own.url];
	const agentId = registration?.agentId ?? (await agentIdOf(this));
	const agent = await findAgentWithToken(this, agentId, ACTIVATION);
	const pointsHere =
		registration?.kind === 'production' ? own.isOurs(agent?.webhook) : own.isThis(agent?.webhook);
	// An agent deleted meanwhile has nothing left to restore.
	if (agent && pointsHere) {
		await setAgentWebhook(this, agent, registration?.previousWebhook ?? '');
	}
	delete store[own.url];
	return true;
}
