/** Call → Get of the Voice Agent node, run in n8n's engine against the sandbox. */
import { createAgent, placeCall, wire } from '../../support/api.cts';
import { API_KEY, transcriptText } from '../../support/fixtures.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

// Calls last a minute unless a test completes them, so none ends while a test looks at it.
const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

describe('Call: Get', () => {
	test('GET /call?id=...; after the call completes the output has its transcript', async () => {
		const agent = await createAgent(sandbox, { name: 'Clinic' });
		const call = await placeCall(sandbox, agent, { context: 'Cleaning on Tuesday at 10:00' });
		await sandbox.clearRequests();

		const live = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id }),
		);
		expect(live).toEqual([call]);
		expect(await wire(sandbox)).toEqual([
			{ method: 'GET', path: '/call', query: { id: call.id }, body: null, status: 200 },
		]);

		expect((await sandbox.control('POST', `/calls/${call.id}/complete`)).status).toBe(200);
		const [ended] = jsonOf(
			await runWith(sandbox, { resource: 'call', operation: 'get', callId: call.id }),
		);

		expect(ended).toMatchObject({
			id: call.id,
			status: 'completed',
			ended_at: expect.any(String),
			duration: expect.any(Number),
		});
		expect(ended.transcript.length).toBeGreaterThan(2);
		for (const entry of ended.transcript) expect(['agent', 'customer']).toContain(entry.speaker);
		expect(transcriptText(ended)).toContain('Cleaning on Tuesday at 10:00');
	});
});
