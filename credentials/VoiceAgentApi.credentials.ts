import type { IAuthenticateGeneric, Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../nodes/shared/credential';

export class VoiceAgentApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Voice Agent API';

	icon: Icon = { light: 'file:../icons/voiceAgent.svg', dark: 'file:../icons/voiceAgent.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-voice-agent';

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

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// Test connection: the nodes' credentialTest method (nodes/shared/methods/credentialTest.ts), which
	// n8n's declarative test cannot replace: it checks the answer's shape and words network failures.
}
