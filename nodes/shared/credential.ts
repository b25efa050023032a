/** The credential type both nodes use; `credentials/VoiceAgentApi.credentials.ts` declares it. */
export const CREDENTIAL_TYPE = 'voiceAgentApi';

/**
 * How every node declares the credential. Its "Test connection" is the nodes' credentialTest method
 * (methods/credentialTest.ts): every node that uses this must have it in its `methods`.
 */
export const voiceAgentCredentials = [
	{ name: CREDENTIAL_TYPE, required: true, testedBy: 'voiceAgentApiTest' },
];

/** What a Base URL must look like, as a remedy in messages. */
export const BASE_URL_HINT =
	'set the Base URL to the API address including /v1, e.g. https://api.example.com/v1';

/** The credential's Base URL without trailing slashes, or undefined when it is no http(s) URL. */
export function normalizedBaseUrl(value: unknown): string | undefined {
	const baseUrl = typeof value === 'string' ? value.trim() : '';
	if (!/^https?:\/\/[^\s/]+\S*$/i.test(baseUrl)) return undefined;
	return baseUrl.replace(/\/+$/, '');
}
