import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { checkBaseUrl, goesOnlyTo, type RequestTarget } from '../nodes/shared/baseUrl';
import { CREDENTIAL_NODES, CREDENTIAL_TYPE } from '../nodes/shared/credential';

/** n8n's legacy `request` options name redirects differently from `httpRequest`'s. */
interface AnyRequestOptions extends IHttpRequestOptions {
	followRedirect?: boolean;
	followAllRedirects?: boolean;
}

export class VoiceAgentApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Voice Agent API';

	icon: Icon = { light: 'file:../icons/voiceAgent.svg', dark: 'file:../icons/voiceAgent.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-voice-agent/n8n-nodes-voice-agent/blob/main/docs/credentials.md';

	// n8n 2.x refuses to decrypt the credential for any other node (the HTTP Request node included).
	// It compares the nodes' full types, which it builds from the nodes that declare the credential,
	// and adds the AI-tool variant itself; older n8n ignores both fields, hence the check below.
	supportedNodes = CREDENTIAL_NODES;

	restrictToSupportedNodes = true as const;

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
	// It adds the key only to a request for the Base URL's origin, whichever node makes it, and turns off
	// following redirects, so the key cannot travel on to another origin.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const base = checkBaseUrl(credentials.baseUrl);
		if (!base.ok) {
			throw new Error(
				`The Voice Agent API credential's Base URL ${base.problem}; the API key was not sent`,
			);
		}
		if (!goesOnlyTo(requestOptions as RequestTarget, base.value.origin)) {
			throw new Error(
				`The Voice Agent API credential sends its API key only to its Base URL's origin (${base.value.origin}); this request goes elsewhere, so it was not sent`,
			);
		}
		const options: AnyRequestOptions = {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
			sendCredentialsOnCrossOriginRedirect: false,
		};
		return options;
	}

	// Test connection: the nodes' credentialTest method (nodes/shared/methods/credentialTest.ts), which
	// n8n's declarative test cannot replace: it checks the answer's shape and words network failures.
}
