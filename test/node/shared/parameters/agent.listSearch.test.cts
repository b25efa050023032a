/** The "From List" agent picker, run through n8n-core's LoadOptionsContext as the editor runs it. */
import { LoadOptionsContext } from 'n8n-core';
import type { INode, INodeListSearchResult, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { createAgent } from '../../../support/api.cts';
import { API_KEY } from '../../../support/fixtures.cts';
import {
	additionalDataFor,
	loadPackage,
	nodeCredentials,
	PACKAGE_NAME,
} from '../../../support/n8n.cts';
import { useSandbox } from '../../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY] });

interface SearchOptions {
	filter?: string;
	paginationToken?: string;
	apiKey?: string;
}

async function searchAgents(
	nodeType: string,
	options: SearchOptions = {},
): Promise<INodeListSearchResult> {
	const pkg = await loadPackage();
	const node: INode = {
		id: 'f0f0f0f0-0000-4000-8000-000000000001',
		name: 'Node',
		type: `${PACKAGE_NAME}.${nodeType}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: nodeCredentials(),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: pkg.nodeTypes,
	});
	// Loading options runs no workflow, so there are no execution hooks.
	const additionalData: IWorkflowExecuteAdditionalData = additionalDataFor(
		pkg,
		{ apiKey: options.apiKey ?? API_KEY, baseUrl: sandbox.baseUrl },
		undefined as never,
	);
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters.agent');
	const search = pkg.node(nodeType).methods?.listSearch?.searchAgents;
	if (!search) throw new Error(`${nodeType} has no searchAgents list search`);
	return await search.call(context, options.filter, options.paginationToken);
}

test('lists agents as "Name (phone number)" with their IDs, one page of 100 per request', async () => {
	const front = await createAgent(sandbox, { name: 'Front Desk' });
	const survey = await createAgent(sandbox, { name: 'Customer Survey' });
	await sandbox.clearRequests();

	const result = await searchAgents('voiceAgent');

	expect(result.results).toEqual([
		{ name: `Customer Survey (${survey.phone_number})`, value: survey.id },
		{ name: `Front Desk (${front.phone_number})`, value: front.id },
	]);
	expect(result.paginationToken).toBeUndefined();
	const requests = await sandbox.requests();
	expect(requests.map((entry) => [entry.method, entry.path, entry.query])).toEqual([
		['GET', '/v1/agents', { limit: '100' }],
	]);
});

test('filters by name (any case) or phone number, and pages with the service cursor', async () => {
	await sandbox.seed({ agents: 150 });
	const reminder = await createAgent(sandbox, { name: 'Renewal Reminder' });

	const byName = await searchAgents('voiceAgent', { filter: 'renewal rem' });
	expect(byName.results).toEqual([
		{ name: `Renewal Reminder (${reminder.phone_number})`, value: reminder.id },
	]);
	const byPhone = await searchAgents('voiceAgent', { filter: reminder.phone_number });
	expect(byPhone.results.map((entry) => entry.value)).toEqual([reminder.id]);

	const first = await searchAgents('voiceAgent');
	expect(first.results).toHaveLength(100);
	expect(first.paginationToken).toEqual(expect.any(String));
	const second = await searchAgents('voiceAgent', {
		paginationToken: first.paginationToken as string,
	});
	expect(second.results).toHaveLength(51);
	expect(second.paginationToken).toBeUndefined();
	const ids = new Set([...first.results, ...second.results].map((entry) => entry.value));
	expect(ids.size).toBe(151);
});

test('the trigger offers the same agent list', async () => {
	const agent = await createAgent(sandbox, { name: 'Order Desk' });
	const result = await searchAgents('voiceAgentTrigger');
	expect(result.results).toEqual([{ name: `Order Desk (${agent.phone_number})`, value: agent.id }]);
});

test('a rejected API key is reported, not shown as an empty list', async () => {
	await expect(searchAgents('voiceAgent', { apiKey: 'wrong-key' })).rejects.toThrow(
		'The Voice Agent API rejected the API key (401 Unauthorized)',
	);
});

describe('the editor does not wait like a batch job', () => {
	test('a rate limit asking for more than 2 seconds fails the search at once, saying when to retry', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		// One token per 30 s: this request takes it, so the search's request must wait about 30 s.
		await sandbox.faults({ rate_limit_per_s: 1 / 30, match: 'GET /agents' });
		await sandbox.api('GET', '/agents', { query: { limit: 1 } });
		await sandbox.clearRequests();

		const started = Date.now();
		await expect(searchAgents('voiceAgent')).rejects.toThrow(
			/^The Voice Agent API is rate limiting this API key; retry after 3\d seconds$/,
		);
		expect(Date.now() - started).toBeLessThan(2_000);
		expect((await sandbox.requests()).map((entry) => entry.status)).toEqual([429]);
	});

	test('a server error is tried twice at most, within about a second', async () => {
		await sandbox.faults({ error_rate: 1, match: 'GET /agents' });

		const started = Date.now();
		await expect(searchAgents('voiceAgent')).rejects.toThrow(
			'The Voice Agent service failed to process GET /agents (500)',
		);
		expect(Date.now() - started).toBeLessThan(2_000);
		expect((await sandbox.requests()).map((entry) => entry.status)).toEqual([500, 500]);
	});
});
