import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { BASE_URL_NOT_HTTP, checkBaseUrl, describeLocation } from '../baseUrl';
import { BASE_URL_HINT } from '../credential';
import { API_KEY_REJECTED } from '../transport/errors';
import { describeNetworkFailure, networkErrorCode } from '../transport/network';
import { RETRY_BUDGETS } from '../transport/retryPolicy';
import { parsedBody } from '../decode/body';
import { decodePage } from '../decode/page';

/**
 * n8n gives a connection test only the legacy `request` helper (ICredentialTestFunctions has no
 * httpRequest), so the test sets the credential's header itself, as its `authenticate` does.
 */
type TestHelpers = ICredentialTestFunctions['helpers'];

interface FullResponse {
	statusCode: number;
	statusMessage?: string;
	headers?: Record<string, unknown>;
	body: unknown;
}

const TIMEOUT_MS = RETRY_BUDGETS.editor.timeoutMs;

const failed = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/** What an answer was, in a few words, for a message saying it was not the API's. */
function describeAnswer(response: FullResponse): string {
	const status = `${response.statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
	const type = String(response.headers?.['content-type'] ?? '');
	const { body } = response;
	if (typeof body === 'string' && (/html/i.test(type) || /^\s*</.test(body))) {
		return `${status} with an HTML page`;
	}
	if (body === undefined || body === null || body === '') return `${status} with an empty body`;
	if (typeof parsedBody(body) === 'string') return `${status} with text that is not JSON`;
	return `${status} with JSON that is not a list of agents`;
}

/** Whether a body has the shape of GET /agents, whatever its Content-Type: an object holding an `agents` array. */
function isAgentList(body: unknown): boolean {
	return decodePage(body, 'agents') !== undefined;
}

async function testConnection(
	helpers: TestHelpers,
	data: IDataObject,
): Promise<INodeCredentialTestResult> {
	const checked = checkBaseUrl(data.baseUrl);
	if (!checked.ok) {
		return failed(
			checked.problem === BASE_URL_NOT_HTTP
				? `The Base URL ${BASE_URL_NOT_HTTP}: ${BASE_URL_HINT}`
				: `The Base URL ${checked.problem}; ${BASE_URL_HINT}`,
		);
	}
	const { baseUrl } = checked.value;
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	if (apiKey === '')
		return failed('The API key is empty: paste the API key of your Voice Agent account');

	const uri = `${baseUrl}/agents`;
	let response: FullResponse;
	try {
		response = (await helpers.request({
			method: 'GET',
			uri,
			qs: { limit: 1 },
			headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
			json: true,
			timeout: TIMEOUT_MS,
			resolveWithFullResponse: true,
			simple: false,
			// A redirect is reported, never followed: the key must not reach another origin.
			followRedirect: false,
			followAllRedirects: false,
			sendCredentialsOnCrossOriginRedirect: false,
		})) as FullResponse;
	} catch (error) {
		// The helper's error carries the request, headers included: only its code is read.
		const failure = describeNetworkFailure(networkErrorCode(error), TIMEOUT_MS);
		return failed(`Could not reach ${baseUrl}: ${failure}`);
	}

	const status = response.statusCode;
	if (status >= 200 && status < 300 && isAgentList(response.body)) {
		return {
			status: 'OK',
			message: 'Connection successful: the Voice Agent API accepted the API key',
		};
	}
	if (status >= 300 && status < 400) {
		return failed(
			`${baseUrl} answered GET /agents with a redirect (${status}) to ${describeLocation(response.headers?.location, uri)}: redirects are not followed, so the API key was not sent there; ${BASE_URL_HINT}`,
		);
	}
	if (status === 401) return failed(API_KEY_REJECTED);
	if (status === 429) {
		return failed('The Voice Agent API is rate limiting this API key: test again in a minute');
	}
	return failed(
		`${baseUrl} does not answer like the Voice Agent API (GET /agents answered ${describeAnswer(response)}): ${BASE_URL_HINT}`,
	);
}

/**
 * "Test connection" of the Voice Agent API credential: one GET /agents that must come back as the
 * service's list, so a Base URL pointing at any other server (n8n itself, a website) fails, and every
 * network failure is told in words.
 */
export async function voiceAgentApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	return await testConnection(this.helpers, credential.data ?? {});
}
