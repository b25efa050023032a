import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../nodes/shared/credential';

export class VoiceAgentApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Voice Agent API';

	icon: Icon = { light: 'file:../icons/voiceAgent.svg', dark: 'file:../icons/voiceAgent.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-voice-agent#credentials';

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

	// A trailing slash on the Base URL is tolerated everywhere, the connection test included.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/agents',
			qs: { limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The API key was rejected (401 Unauthorized): check the API key',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers GET /agents at this Base URL (404): check that the Base URL is the API address and ends with /v1',
				},
			},
		],
	};
}
