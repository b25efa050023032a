import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import type { IHookFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/credential';

/**
 * The webhook an agent had before the trigger took it over belongs to another receiver and may carry
 * its secret (a token in its query, an unguessable path). Static data, and so every export of the
 * workflow, keeps it only sealed: AES-256-GCM with a key derived (HKDF-SHA256) from the credential's
 * API key, bound to the trigger's own URL. Without the API key it gives away nothing usable.
 */
const VERSION = 'v1';
const IV_BYTES = 12;

async function keyOf(context: IHookFunctions): Promise<Buffer> {
	const { apiKey } = await context.getCredentials(CREDENTIAL_TYPE);
	const key = hkdfSync('sha256', String(apiKey), 'n8n-nodes-voice-agent', 'previous webhook', 32);
	return Buffer.from(key);
}

const encode = (bytes: Buffer) => bytes.toString('base64url');

/**
 * The webhook sealed for the registration at `ownUrl`; '' stays '' (the agent had none). The IV is
 * derived from the key, the URL and the webhook, so every n8n main seals the same webhook the same
 * way (static data does not change when nothing did), and one IV never serves two plaintexts.
 */
export async function sealWebhook(
	context: IHookFunctions,
	ownUrl: string,
	webhook: string,
): Promise<string> {
	if (webhook === '') return '';
	const key = await keyOf(context);
	const iv = createHmac('sha256', key)
		.update(`${ownUrl}\n${webhook}`)
		.digest()
		.subarray(0, IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', key, iv);
	cipher.setAAD(Buffer.from(ownUrl));
	const sealed = Buffer.concat([cipher.update(webhook, 'utf8'), cipher.final()]);
	return [VERSION, encode(iv), encode(cipher.getAuthTag()), encode(sealed)].join('.');
}

/**
 * The webhook a registration sealed, or undefined when it cannot be opened: the credential's API key
 * changed since (or the value was altered). Never a guess.
 */
export async function openWebhook(
	context: IHookFunctions,
	ownUrl: string,
	sealed: string,
): Promise<string | undefined> {
	if (sealed === '') return '';
	const [version, iv, tag, data, ...rest] = sealed.split('.');
	if (version !== VERSION || data === undefined || rest.length > 0) return undefined;
	try {
		const decipher = createDecipheriv(
			'aes-256-gcm',
			await keyOf(context),
			Buffer.from(iv, 'base64url'),
		);
		decipher.setAAD(Buffer.from(ownUrl));
		decipher.setAuthTag(Buffer.from(tag, 'base64url'));
		const opened = Buffer.concat([
			decipher.update(Buffer.from(data, 'base64url')),
			decipher.final(),
		]);
		return opened.toString('utf8');
	} catch {
		return undefined;
	}
}
