/** The credential type both nodes use; `credentials/VoiceAgentApi.credentials.ts` declares it. */
export const CREDENTIAL_TYPE = 'voiceAgentApi';

/**
 * The nodes that declare the credential, by the names in their descriptions: n8n 2.x lets only these
 * (and the Voice Agent node's AI-tool variant, which n8n adds itself) decrypt it.
 */
export const CREDENTIAL_NODES = ['voiceAgent', 'voiceAgentTrigger', 'voiceAgentCallHistoryTrigger'];

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
