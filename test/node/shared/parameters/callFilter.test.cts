/** The call-list filter (agent and client number) of Call → Get Many, run in n8n's engine against the sandbox. */
import { allCalls, wire } from '../../../support/api.cts';
import { API_KEY } from '../../../support/fixtures.cts';
import { rl } from '../../../support/n8n.cts';
import { jsonOf, runWith } from '../../../support/node.cts';
import { useSandbox } from '../../../support/sandbox.cts';

// Calls last a minute unless a test completes them, so none ends while a test looks at it.
const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('Call: Get Many', () => {
	test("the agent filter sends agent_id and outputs only that agent's calls", async () => {
		await sandbox.seed({ agents: 3, calls: 60 });
		const [agent] = (await sandbox.api('GET', '/agents')).body.agents;
		const expected = await allCalls(sandbox, { agent_id: agent.id });
		expect(expected.length).toBeGreaterThan(0);
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			agent: rl(agent.id),
		});

		const calls = jsonOf(run);
		expect(calls).toEqual(expected);
		expect(calls.every((call) => call.agent_id === agent.id)).toBe(true);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ agent_id: agent.id, limit: '100' },
		]);
	});

	test('the client number filter sends client_number and outputs only calls with that number', async () => {
		await sandbox.seed({ agents: 2, calls: 60 });
		const client = (await allCalls(sandbox))[0].client_number;
		const expected = await allCalls(sandbox, { client_number: client });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			filters: { clientNumber: client },
		});

		const calls = jsonOf(run);
		expect(calls).toEqual(expected);
		expect(calls.every((call) => call.client_number === client)).toBe(true);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ client_number: client, limit: '100' },
		]);
	});

	test('agent and client number filters together, with an empty agent picker meaning all agents', async () => {
		await sandbox.seed({ agents: 2, calls: 40 });
		const [call] = await allCalls(sandbox);
		const expected = await allCalls(sandbox, {
			agent_id: call.agent_id,
			client_number: call.client_number,
		});
		await sandbox.clearRequests();

		const both = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			agent: rl(call.agent_id),
			filters: { clientNumber: call.client_number },
		});
		const none = await runWith(sandbox, {
			resource: 'call',
			operation: 'getMany',
			returnAll: false,
			limit: 5,
			agent: rl('', 'list'),
		});

		expect(jsonOf(both)).toEqual(expected);
		expect(jsonOf(none)).toHaveLength(5);
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ agent_id: call.agent_id, client_number: call.client_number, limit: '100' },
			{ limit: '5' },
		]);
	});
});
