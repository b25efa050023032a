import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IHookFunctions, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/credential';
import { configurationError } from '../shared/errors';

/** Query parameter of the registered URL that carries the trigger's token. */
export const TOKEN_PARAMETER = 'token';

/** 192 bits. */
const TOKEN_HEX_LENGTH = 48;

export const tokenRotationOption: INodeProperties = {
	displayName: 'Token Rotation',
	name: 'tokenRotation',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 0 },
	default: 0,
	description:
		'Raise this number and publish the workflow again to give the agent a webhook URL with a new token: the old token is refused from then on. A number used before brings its token back.',
};

/** The rotation counter of the trigger's options: a whole number from 0. */
export function readTokenRotation(context: IHookFunctions): number {
	const value = context.getNodeParameter('options.tokenRotation', 0);
	if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
		const message = `Token Rotation must be a whole number from 0 (got ${JSON.stringify(value)})`;
		throw configurationError(context.getNode(), { message });
	}
	return value;
}

/**
 * The token of a URL: derived from the API key, so that every n8n main registering the same trigger
 * at the same time (several mains start together, or one restarts) sends the same URL and saves the
 * same hash, whoever writes last. Rotation 0 derives what earlier versions derived, so upgrading
 * changes no URL. Someone who sees the URL learns nothing of the key.
 */
export async function tokenFor(
	context: IHookFunctions,
	url: string,
	rotation: number,
): Promise<string> {
	const { apiKey } = await context.getCredentials(CREDENTIAL_TYPE);
	const rotated = rotation === 0 ? '' : `\nrotation ${rotation}`;
	return createHmac('sha256', String(apiKey))
		.update(`n8n-nodes-voice-agent webhook\n${url}${rotated}`)
		.digest('hex')
		.slice(0, TOKEN_HEX_LENGTH);
}

/** What static data keeps of a token: its SHA-256, so a workflow export does not open the URL. */
export function hashToken(token: string): string {
	return createHash('sha256').update(token).digest('hex');
}

/** Whether a token (as received) has the hash that was saved, in time independent of where they differ. */
export function tokenMatches(token: string, savedHash: string): boolean {
	const given = Buffer.from(hashToken(token), 'hex');
	const saved = Buffer.from(savedHash, 'hex');
	return given.length === saved.length && timingSafeEqual(given, saved);
}

/** The token a webhook URL carries, or undefined. */
export function tokenOf(webhook: string | undefined): string | undefined {
	if (!webhook) return undefined;
	try {
		return new URL(webhook).searchParams.get(TOKEN_PARAMETER) ?? undefined;
	} catch {
		return undefined;
	}
}
