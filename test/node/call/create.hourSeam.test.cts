/**
 * Max Calls per Hour counts the agent's calls of the last hour in the call list, page by page. Against the
 * live service, calls placed several a second were lost at its pages' seams and not counted: 250 calls of
 * the hour counted as fewer, and a budget of 250 let more calls through. Run in n8n's engine against both
 * services the sandbox plays.
 */
import { wireLines } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { everyCall, PROFILES, seedCalls, textId } from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';

describe.each(PROFILES)('the %s service', (profile) => {
	const sandbox = useSandbox({ callDurationMs: 60_000, profile });

	async function hourOfCalls() {
		// One agent's 250 calls, 30 a second, ended ten minutes ago: all in the last hour.
		await seedCalls(sandbox, profile, { agents: 1, calls: 250, calls_per_second: 30 });
		const calls = await everyCall(sandbox, profile);
		expect(calls).toHaveLength(250);
		await sandbox.clearRequests();
		return textId(calls[0].agent_id);
	}

	const create = (agentId: string, maxCallsPerHour: number) => ({
		resource: 'call',
		operation: 'create',
		from: rl(agentId),
		to: '+14155550123',
		options: { maxCallsPerHour },
	});

	test('250 calls in the hour, placed 30 a second: at a budget of 250 nothing is dialled', async () => {
		const agentId = await hourOfCalls();

		const run = await runWith(sandbox, create(agentId, 250));

		expect(run.error?.message).toMatch(
			/^Max Calls per Hour \(250\) is reached: the agent has 250 calls in the last hour, so the call to \+14155550123 was not placed/,
		);
		expect((await wireLines(sandbox)).filter((line) => line.startsWith('POST /call'))).toEqual([]);
	});

	test('at a budget of 251 the call is placed', async () => {
		const agentId = await hourOfCalls();

		const run = await runWith(sandbox, create(agentId, 251));

		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toHaveLength(1);
		expect((await wireLines(sandbox)).filter((line) => line.startsWith('POST /call'))).toEqual([
			'POST /call 200',
		]);
	});
});
