/**
 * Transcript Format (entries, text, both) on Call → Get and Call → Get Many, in n8n's engine; the
 * call history trigger and the webhook trigger use the same option and function (their suites show it).
 */
import { allCalls, createAgent, endCall, getCall, placeCall } from '../../../support/api.cts';
import { transcriptLines } from '../../../support/fixtures.cts';
import { jsonOf, runWith } from '../../../support/node.cts';
import { useSandbox } from '../../../support/sandbox.cts';
import {
	transcriptText,
	withTranscriptFormat,
} from '../../../../nodes/shared/parameters/transcriptFormat';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });

/** Call → Get of the call with these options. */
function getAs(callId: string, options: Record<string, string>) {
	return runWith(sandbox, { resource: 'call', operation: 'get', callId, options });
}

async function endedCall() {
	const agent = await createAgent(sandbox, { name: 'Clinic' });
	const call = await placeCall(sandbox, agent, { context: 'Cleaning on Tuesday at 10:00' });
	await endCall(sandbox, call.id);
	return await getCall(sandbox, call.id);
}

describe('Call: Get', () => {
	test('Text: "transcript_text", a line per turn, instead of the list', async () => {
		const call = await endedCall();

		const [output] = jsonOf(await getAs(call.id, { transcriptFormat: 'text' }));

		const { transcript, ...rest } = call;
		expect(output).toEqual({ ...rest, transcript_text: transcriptLines({ transcript }) });
		expect(output.transcript_text).toMatch(/^Agent: Hello, this is Clinic\.\nCustomer: /);
		expect(output.transcript_text).toContain('Agent: I am calling about this: Cleaning on Tuesday');
	});

	test('Both: the list and the text; Entries (the default): the call as the service gives it', async () => {
		const call = await endedCall();
		expect(jsonOf(await getAs(call.id, { transcriptFormat: 'both' }))).toEqual([
			{ ...call, transcript_text: transcriptLines(call) },
		]);
		expect(jsonOf(await getAs(call.id, { transcriptFormat: 'entries' }))).toEqual([call]);
		expect(jsonOf(await getAs(call.id, {}))).toEqual([call]);
	});

	test('a call in progress (no transcript yet): an empty text', async () => {
		const agent = await createAgent(sandbox);
		const call = await placeCall(sandbox, agent);

		const [output] = jsonOf(await getAs(call.id, { transcriptFormat: 'text' }));

		expect(output.transcript_text).toBe('');
		expect(output).not.toHaveProperty('transcript');
	});

	test('a format no one offers (from an expression): an error naming the field and the item', async () => {
		const run = await getAs('call_1', { transcriptFormat: 'csv' });

		expect(run.error?.message).toBe(
			'Transcript Format must be one of entries, text, both (got "csv") [item 0]',
		);
	});
});

describe('Call: Get Many with Include Transcripts', () => {
	test('Text: one row-ready text per call, in the list order', async () => {
		await sandbox.seed({ calls: 12 });
		const listed = await allCalls(sandbox);

		const output = jsonOf(
			await runWith(sandbox, {
				resource: 'call',
				operation: 'getMany',
				returnAll: true,
				options: { includeTranscripts: true, transcriptFormat: 'text' },
			}),
		);

		expect(output.map((call) => call.id)).toEqual(listed.map((call) => call.id));
		for (const [index, call] of output.entries()) {
			const full = await getCall(sandbox, call.id);
			expect(call).not.toHaveProperty('transcript');
			expect(call.transcript_text).toBe(transcriptLines(full));
			expect(call.client_number).toBe(listed[index].client_number);
		}
	});
});

describe('the shared formatting function', () => {
	test('labels other speakers by name and skips what is not a turn', () => {
		expect(
			transcriptText([
				{ speaker: 'agent', text: 'Hi' },
				{ speaker: 'human_agent', text: 'Taking over' },
				{ speaker: '', text: 'static' },
				'noise',
				null,
				{ speaker: 'customer' },
			]),
		).toBe('Agent: Hi\nHuman agent: Taking over\nUnknown: static\nCustomer: ');
		expect(transcriptText(undefined)).toBe('');
		expect(transcriptText([])).toBe('');
	});

	test('leaves the call it is given as it was', () => {
		const call = { id: 'call_1', transcript: [{ speaker: 'agent', text: 'Hi' }] };
		const copy = JSON.parse(JSON.stringify(call));

		expect(withTranscriptFormat(call, 'text')).toEqual({
			id: 'call_1',
			transcript_text: 'Agent: Hi',
		});
		expect(call).toEqual(copy);
	});
});
