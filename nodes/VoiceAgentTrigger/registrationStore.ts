import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { sealWebhook } from './previousWebhook';
import { hashToken, tokenMatches } from './webhookToken';

export type RegistrationKind = 'production' | 'test';

/** What one registration (the test URL or the production URL) remembers between its hooks. */
export interface Registration extends IDataObject {
	/** SHA-256 of the URL's token: the token itself is only in the agent's webhook. */
	tokenHash: string;
	/** The Token Rotation the token was derived with. */
	rotation: number;
	agentId: string;
	/**
	 * The webhook the agent had before this trigger took it over, sealed (previousWebhook.ts), to be
	 * put back: another receiver's URL may carry its secret. '' when the agent had none.
	 */
	sealedPreviousWebhook: string;
	kind: RegistrationKind;
}

/**
 * As earlier versions saved it: the previous webhook in clear and, before hashing, the token in
 * clear without a rotation.
 */
interface LegacyRegistration extends IDataObject {
	secret?: string;
	tokenHash?: string;
	rotation?: number;
	agentId: string;
	previousWebhook?: string;
	kind: RegistrationKind;
}

export type SavedRegistration = Registration | LegacyRegistration;

type RegistrationStore = Record<string, SavedRegistration>;

/** Whether a registration was saved by an earlier version (a clear token or a clear previous webhook). */
export function isLegacy(saved: SavedRegistration): saved is LegacyRegistration {
	return typeof saved.secret === 'string' || typeof saved.previousWebhook === 'string';
}

/** Whether a token (as received or as the agent holds it) is the one a registration saved. */
export function isTokenOf(saved: SavedRegistration, token: string): boolean {
	if (typeof saved.secret === 'string') return tokenMatches(token, hashToken(saved.secret));
	return typeof saved.tokenHash === 'string' && tokenMatches(token, saved.tokenHash);
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
 * The registrations for the webhook methods, which change them. What an earlier version saved in
 * clear (a token, another receiver's URL) is replaced here by its hash and its sealed form, so it
 * leaves static data at the next registration write.
 */
export async function writableRegistrations(
	context: IHookFunctions,
): Promise<Record<string, Registration>> {
	const staticData = context.getWorkflowStaticData('node');
	staticData.registrations ??= {};
	const store = staticData.registrations as RegistrationStore;
	for (const [url, saved] of Object.entries(store)) {
		if (!isLegacy(saved)) continue;
		const { secret, previousWebhook, tokenHash, rotation, ...rest } = saved;
		store[url] = {
			...rest,
			tokenHash: typeof secret === 'string' ? hashToken(secret) : String(tokenHash),
			rotation: typeof secret === 'string' ? 0 : Number(rotation ?? 0),
			sealedPreviousWebhook: await sealWebhook(context, url, previousWebhook ?? ''),
		};
	}
	return store as Record<string, Registration>;
}
