/**
 * The Call History Trigger with the live service's calls (issue 39 item 4), polled as n8n polls (./poll.cts)
 * against the sandbox's live profile. A live call has no status: it rings (not connected, no event), talks
 * (`in_progress`), and ends (a real `ended_at`); a call that never connects rings for ever, and one whose
 * server crashed stays in progress for ever. The trigger never outputs a ringing call as ended, reports a
 * call that never connected once, 10 minutes after it was placed by the service's clock (status
 * `not_connected`, which End Statuses can pick or leave out), and keeps a call that stays in progress
 * within its pending bound.
 */
import { createAgent, getCall, placeCall, wireLines } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import {
	asOutput,
	newEndedCallsOf,
	NEVER_CONNECTED_AFTER_MS,
	seedCalls,
	systemMessagesOfRow,
	textId,
} from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { usePollTriggers } from './poll.cts';

// Placed calls ring until a test connects or ends them; a number ending in 0000 never answers.
const sandbox = useSandbox({ profile: 'live', ringMs: 3_600_000, callDurationMs: 3_600_000 });
const start = usePollTriggers(sandbox);
const NEVER_ANSWERS = '+14155550000';

afterEach(() => restoreClock());

const control = async (id: string, action: string) => {
	const answer = await sandbox.control('POST', `/calls/${id}/${action}`);
	expect(answer.status).toBe(200);
	return answer.body;
};

test('a ringing call is kept, never output as ended; once it ends it is output once, its transcript without the system message', async () => {
	const agent = await createAgent(sandbox, { name: 'Clinic', system_prompt: 'You book visits.' });
	const trigger = await start({ options: { transcriptFormat: 'both' } });
	await trigger.activate();
	const call = textId((await placeCall(sandbox, agent, { context: 'Cleaning on Tuesday' })).id);

	await trigger.poll();
	expect(asOutput(await getCall(sandbox, call), 'live').status).toBe('ringing');
	expect(trigger.emitted).toEqual([]);
	expect(trigger.state?.pending).toEqual([call]);
	await control(call, 'connect');
	await trigger.poll();
	expect(trigger.emitted).toEqual([]);
	await sandbox.clearRequests();
	await control(call, 'complete');
	await trigger.poll();
	await trigger.poll();
	// The call once in full when it has ended; the list alone while it rang and talked.
	expect(await wireLines(sandbox)).toEqual(['GET /calls 200', 'GET /call 200', 'GET /calls 200']);

	const row = await getCall(sandbox, call);
	const output = asOutput(row, 'live');
	expect(output.status).toBe('completed');
	expect(trigger.emitted).toEqual([
		{
			...output,
			transcript_text: output.transcript
				.map((turn: any) => `${turn.speaker === 'agent' ? 'Agent' : 'Customer'}: ${turn.text}`)
				.join('\n'),
			dedupe_key: `${call}:call_ended`,
		},
	]);
	// The prompt is in the saved transcript, never in what the trigger outputs.
	expect(systemMessagesOfRow(row).join('\n')).toContain('You book visits.');
	expect(JSON.stringify(trigger.emitted)).not.toContain('You book visits.');
	expect(trigger.state?.pending).toEqual([]);
});

test('Include System Messages: the prompt and context come as system_messages, never in the transcript', async () => {
	const agent = await createAgent(sandbox, { name: 'Clinic', system_prompt: 'You book visits.' });
	const trigger = await start({ options: { includeSystemMessages: true } });
	await trigger.activate();
	const call = textId((await placeCall(sandbox, agent, { context: 'Cleaning on Tuesday' })).id);
	await control(call, 'complete');

	await trigger.poll();

	const [item] = trigger.emitted as any[];
	expect(item.system_messages).toEqual(systemMessagesOfRow(await getCall(sandbox, call)));
	expect(item.system_messages.join('\n')).toContain('You book visits.');
	expect(JSON.stringify(item.transcript)).not.toContain('You book visits.');
});

describe('a call that never connects', () => {
	test('is reported once, 10 minutes after it was placed by the service\u2019s clock, as not_connected', async () => {
		setClock('2026-11-27T15:00:00Z');
		const agent = await createAgent(sandbox);
		const trigger = await start();
		await trigger.activate();
		const call = textId((await placeCall(sandbox, agent, { to: NEVER_ANSWERS })).id);

		await trigger.poll();
		jumpClock(NEVER_CONNECTED_AFTER_MS - 60_000);
		await trigger.poll();
		expect(trigger.emitted).toEqual([]);
		expect(trigger.state?.pending).toEqual([call]);

		jumpClock(61_000);
		await trigger.poll();
		await trigger.poll();
		jumpClock(3_600_000);
		await trigger.poll();

		expect(trigger.emittedIds).toEqual([call]);
		expect(trigger.emitted[0]).toMatchObject({
			id: call,
			status: 'not_connected',
			ended_at: null,
			duration: null,
			transcript: null,
			dedupe_key: `${call}:call_ended`,
		});
		expect(trigger.emitted[0]).not.toHaveProperty('to');
		expect(trigger.state?.pending).toEqual([]);
	});

	test.each([
		{ endStatuses: 'completed', output: ['answered'] },
		{ endStatuses: 'Not_Connected', output: ['unanswered'] },
		{ endStatuses: '', output: ['answered', 'unanswered'] },
	])(
		'End Statuses "$endStatuses": outputs $output; what it leaves out is not kept',
		async ({ endStatuses, output }) => {
			setClock('2026-11-27T15:00:00Z');
			const agent = await createAgent(sandbox);
			const trigger = await start({ options: { endStatuses } });
			await trigger.activate();
			const calls = {
				unanswered: textId((await placeCall(sandbox, agent, { to: NEVER_ANSWERS })).id),
				answered: textId((await placeCall(sandbox, agent, { to: '+14155550123' })).id),
			};
			await trigger.poll();
			await control(calls.answered, 'complete');

			jumpClock(NEVER_CONNECTED_AFTER_MS + 1_000);
			await trigger.poll();
			await trigger.poll();

			expect([...trigger.emittedIds].sort()).toEqual(
				output.map((name) => calls[name as keyof typeof calls]).sort(),
			);
			expect(trigger.state?.pending).toEqual([]);
		},
	);

	test('one placed 10 minutes before the trigger starts from All History is reported with the history', async () => {
		await seedCalls(sandbox, 'live', { calls: 200 });
		const history = (await sandbox.api('GET', '/calls', { query: { limit: 1000 } })).body.calls;
		const neverConnected = history.filter((row: any) => row.client_number === '');
		expect(neverConnected.length).toBeGreaterThan(5);
		const trigger = await start({ options: { startFrom: 'allHistory' } });

		await trigger.activate();

		expect(trigger.emittedIds).toHaveLength(200);
		const statuses = new Map(trigger.emitted.map((item) => [item.id, item.status]));
		for (const row of neverConnected) expect(statuses.get(textId(row.id))).toBe('not_connected');
		expect([...statuses.values()].filter((status) => status === 'completed')).toHaveLength(
			200 - neverConnected.length,
		);
	});
});

test('a call that stays in progress for ever (its server crashed) is kept, alone, at the cost of one GET /call a poll once it is off the newest page', async () => {
	const agent = await createAgent(sandbox);
	const trigger = await start();
	await trigger.activate();
	const stuck = textId((await placeCall(sandbox, agent)).id);
	await control(stuck, 'connect');
	await control(stuck, 'freeze');
	await trigger.poll();
	// A page of newer calls that ended pushes it off the newest page.
	const fresh = await newEndedCallsOf(sandbox, 'live', 150);

	await trigger.poll();
	expect(trigger.emittedIds).toHaveLength(150);
	await sandbox.clearRequests();
	for (let poll = 0; poll < 3; poll++) await trigger.poll();

	expect(trigger.emittedIds).toHaveLength(150);
	expect(trigger.emittedIds).not.toContain(stuck);
	expect(new Set(trigger.emittedIds)).toEqual(new Set(fresh.map((row) => textId(row.id))));
	expect(trigger.state?.pending).toEqual([stuck]);
	// Each poll: the newest page (up to the position), and, as a kept call is not on it, one page past the
	// position or its GET /call.
	const lines = await wireLines(sandbox);
	expect(lines.length).toBeLessThanOrEqual(3 * 3);
	expect(lines.filter((line) => line === 'GET /calls 200').length).toBeGreaterThanOrEqual(3);
	expect(JSON.stringify(trigger.savedNodeData).length).toBeLessThan(20_000);
});
