/** Agent → Get Many's Name Contains filter, read from the agent list, run in n8n's engine against the sandbox. */
import { agentListReads, createAgent, wire, wireLines } from '../../support/api.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

describe('Agent → Get Many: Name Contains', () => {
	/** 150 agents, every tenth a reminder; returns the reminders newest first, as the list orders them. */
	async function agentsWithReminders(): Promise<any[]> {
		const reminders: any[] = [];
		for (let n = 0; n < 150; n++) {
			const name = n % 10 === 0 ? `Renewal REMINDER ${n}` : `Agent ${n}`;
			const agent = await createAgent(sandbox, { name });
			if (n % 10 === 0) reminders.unshift(agent);
		}
		await sandbox.clearRequests();
		return reminders;
	}

	test('Return All: every agent whose name contains the text, ignoring case, in list order', async () => {
		const reminders = await agentsWithReminders();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: true,
			filters: { nameContains: ' reminder ' },
		});

		expect(jsonOf(run).map((agent) => agent.id)).toEqual(reminders.map((agent) => agent.id));
		expect((await wire(sandbox)).map((request) => request.query)).toEqual([
			{ limit: '100' },
			{ limit: '100', cursor: expect.any(String) },
		]);
	});

	test('Limit: stops reading the list once it has that many matches', async () => {
		const reminders = await agentsWithReminders();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
			filters: { nameContains: 'Reminder' },
		});

		expect(jsonOf(run).map((agent) => agent.id)).toEqual(
			reminders.slice(0, 3).map((agent) => agent.id),
		);
		expect(await wireLines(sandbox)).toEqual(['GET /agents 200']);
	});

	test('no match: no items, and the whole list was read', async () => {
		await agentsWithReminders();

		const run = await runWith(sandbox, {
			resource: 'agent',
			operation: 'getMany',
			returnAll: false,
			limit: 5,
			filters: { nameContains: 'Nobody' },
		});

		expect(run.error).toBeUndefined();
		expect(run.items).toEqual([]);
		expect(await agentListReads(sandbox)).toBe(2);
	});
});
