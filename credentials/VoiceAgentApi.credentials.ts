import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../nodes/shared/credential';

export class VoiceAgentApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Voice Agent API';

	icon: Icon = { light: 'file:../icons/voiceAgent.svg', dark: 'file:../icons/voiceAgent.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-voice-agent/n8n-nodes-voice-agent/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The API key from your Voice Agent account dashboard (or from the support team)',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com/v1',
			description:
				'Address of the Voice Agent API including its version segment, for example https://api.example.com/v1. For the local sandbox: http://127.0.0.1:4010/v1.',
		},
	];

	// A function rather than the declarative `{ type: 'generic' }` form: n8n evaluates the declarative form
	// as an expression on every request (about a millisecond each in n8n 2.x), a function costs nothing.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
		};
	}

	// Test connection: the nodes' credentialTest method (nodes/shared/methods/credentialTest.ts), which
	// n8n's declarative test cannot replace: it checks the answer's shape and words network failures.
}
