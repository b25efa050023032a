/** Call → Set Context of the Voice Agent node, run in n8n's engine against the sandbox. */
import { createAgent, placeCall, wire } from '../../support/api.cts';
import { API_KEY, transcriptText } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

// Calls last a minute unless a test completes them, so none ends while a test looks at it.
const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('Call: Set Context', () => {
	test('POST /call/context outputs the updated call; once completed its transcript mentions the new context', async () => {
		const agent = await createAgent(sandbox, { name: 'Updater' });
		const call = await placeCall(sandbox, agent, { context: 'Delivery on Monday' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: call.id,
			context: 'Delivery moved to Wednesday',
		});

		const [updated] = jsonOf(run);
		// The call is read first: its state, and its id in the JSON type the service uses.
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/call', query: { id: call.id }, body: null, status: 200 },
			{
				method: 'POST',
				path: '/call/context',
				query: {},
				body: { id: call.id, context: 'Delivery moved to Wednesday' },
				status: 200,
			},
		]);
		expect(updated).toEqual({
			id: call.id,
			agent_id: agent.id,
			from: agent.phone_number,
			to: call.to,
			context: 'Delivery moved to Wednesday',
			status: 'in_progress',
			created_at: call.created_at,
			updated_at: expect.any(String),
		});

		await sandbox.control('POST', `/calls/${call.id}/complete`);
		const [ended] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id }),
		);
		expect(ended.status).toBe('completed');
		expect(transcriptText(ended)).toContain('Delivery moved to Wednesday');
	});

	test('on a call that has ended, nothing is sent and the error says it ended', async () => {
		const agent = await createAgent(sandbox, { name: 'Late' });
		const call = await placeCall(sandbox, agent);
		await sandbox.control('POST', `/calls/${call.id}/complete`);

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callId: call.id,
			context: 'Too late',
		});

		expect(run.error?.message).toBe(
			`The call ${call.id} has ended (status completed): no context was sent [item 0]`,
		);
		expect((await wire(sandbox)).map((request) => request.path).includes('/call/context')).toBe(
			false,
		);
	});
});
