/**
 * The credential's own defence, which holds in every n8n version: `authenticate` adds the key only to a
 * request for the Base URL's origin and turns off following redirects; n8n 2.x's restriction to the
 * package's nodes is declared.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { VoiceAgentApi } from '../../../credentials/VoiceAgentApi.credentials';
import { VoiceAgent } from '../../../nodes/VoiceAgent/VoiceAgent.node';
import { VoiceAgentCallHistoryTrigger } from '../../../nodes/VoiceAgentCallHistoryTrigger/VoiceAgentCallHistoryTrigger.node';
import { VoiceAgentTrigger } from '../../../nodes/VoiceAgentTrigger/VoiceAgentTrigger.node';

const KEY = 'va_unit_key_Xk29sLq0';
const credentials = { apiKey: KEY, baseUrl: 'https://api.example.com/v1/' };
const credential = new VoiceAgentApi();

async function authenticate(
	request: object,
	data: Record<string, unknown> = credentials,
): Promise<IHttpRequestOptions> {
	return await credential.authenticate(
		data as typeof credentials,
		request as unknown as IHttpRequestOptions,
	);
}

describe('authenticate', () => {
	test.each<[string, object]>([
		['an absolute url', { url: 'https://api.example.com/v1/agents' }],
		['baseURL and a relative url', { baseURL: 'https://api.example.com/v1', url: '/agents' }],
		['a legacy uri', { uri: 'https://api.example.com/v1/agents', method: 'GET' }],
	])(
		'%s on the Base URL’s origin: the key, and no redirect is followed',
		async (_what, request) => {
			const options = await authenticate({ ...request, headers: { Accept: 'application/json' } });

			expect(options).toEqual({
				...request,
				headers: { Accept: 'application/json', Authorization: `Bearer ${KEY}` },
				disableFollowRedirect: true,
				followRedirect: false,
				followAllRedirects: false,
				sendCredentialsOnCrossOriginRedirect: false,
			});
		},
	);

	test('a redirect setting of the caller is overridden', async () => {
		const options = await authenticate({
			url: 'https://api.example.com/v1/agents',
			disableFollowRedirect: false,
			followAllRedirects: true,
			sendCredentialsOnCrossOriginRedirect: true,
		});

		expect(options).toMatchObject({
			disableFollowRedirect: true,
			followAllRedirects: false,
			sendCredentialsOnCrossOriginRedirect: false,
		});
	});

	test.each<[string, object]>([
		['another host', { url: 'https://collector.example/steal' }],
		['another port', { url: 'https://api.example.com:8443/v1/agents' }],
		[
			'an absolute url beside baseURL',
			{ baseURL: 'https://api.example.com/v1', url: 'https://collector.example/' },
		],
		['a legacy uri elsewhere', { uri: 'http://127.0.0.1:9/v1/agents' }],
		['no url', {}],
	])('%s: refused, naming the rule, without the key', async (_what, request) => {
		const refusal = authenticate(request);

		await expect(refusal).rejects.toThrow(
			"The Voice Agent API credential sends its API key only to its Base URL's origin (https://api.example.com); this request goes elsewhere, so it was not sent",
		);
		await refusal.catch((error: Error) => expect(String(error.stack)).not.toContain(KEY));
	});

	test('a Base URL with a user name and password: refused', async () => {
		await expect(
			authenticate(
				{ url: 'https://api.example.com/v1/agents' },
				{ apiKey: KEY, baseUrl: 'https://user:pw@api.example.com/v1' },
			),
		).rejects.toThrow(
			"The Voice Agent API credential's Base URL must not contain a user name or password (user:password@): the API key goes in the API Key field; the API key was not sent",
		);
	});
});

describe('n8n 2.x: only the package’s nodes may use the credential', () => {
	test('restricted to exactly the nodes that declare it, by the names in their descriptions', () => {
		expect(credential.restrictToSupportedNodes).toBe(true);
		const declaring = [
			new VoiceAgent(),
			new VoiceAgentTrigger(),
			new VoiceAgentCallHistoryTrigger(),
		]
			.filter((node) =>
				node.description.credentials?.some((entry) => entry.name === credential.name),
			)
			.map((node) => node.description.name);
		expect([...credential.supportedNodes].sort()).toEqual(declaring.sort());
	});
});
