/** The credential type both nodes use; `credentials/VoiceAgentApi.credentials.ts` declares it. */
export const CREDENTIAL_TYPE = 'voiceAgentApi';

export const voiceAgentCredentials = [{ name: CREDENTIAL_TYPE, required: true }];
