/**
 * The Call History Trigger when the service answers 200 with something that is not what was asked for
 * (sandbox variants: `null`, an array, an HTML page, truncated JSON, missing or mistyped fields): of
 * GET /call for a call that ended, or of GET /calls. No call is dropped: the poll fails visibly (n8n is
 * told why) and keeps the call pending or its position, and outputs the call once the service answers
 * properly. Polled as n8n polls (see ./poll.cts).
 */
import type { OddAnswer } from '../../../sandbox/variants.js';
import { createAgent, endCall, placeCall } from '../../support/api.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { usePollTriggers } from './poll.cts';

const sandbox = useSandbox({ callDurationMs: 3_600_000 });
const start = usePollTriggers(sandbox);

const ODD_ANSWERS: Array<Exclude<OddAnswer, 'normal'>> = [
	'null',
	'array',
	'html',
	'truncated',
	'missing_fields',
	'mistyped_fields',
];

async function publishedWithCall() {
	const trigger = await start();
	await trigger.activate();
	const agent = await createAgent(sandbox);
	const call = await placeCall(sandbox, agent);
	// The call is taken in progress (pending), then ends: the next poll reads it in full.
	await trigger.poll();
	await endCall(sandbox, call.id);
	return { trigger, call };
}

describe('GET /call answers 200 without the call that ended', () => {
	test.each(ODD_ANSWERS)(
		'%s: the poll fails, naming the call; it stays pending and is output once at the next poll',
		async (odd) => {
			const { trigger, call } = await publishedWithCall();
			await sandbox.variants({ call_answer: odd });

			await trigger.poll();

			expect(trigger.emittedIds).toEqual([]);
			expect(trigger.pollErrors.map((error) => error.message)).toEqual([
				expect.stringMatching(
					/^1 of 1 calls could not be fetched in full: GET \/call answered 200 without the call "call_[^"]+" \(.+\) \(1 call\)$/,
				),
			]);
			expect(trigger.state?.pending).toEqual([call.id]);

			await sandbox.variants({});
			await trigger.poll();
			await trigger.poll();
			expect(trigger.emittedIds).toEqual([call.id]);
		},
	);
});

describe('GET /calls answers 200 without the page', () => {
	test.each(ODD_ANSWERS)(
		'%s: the poll fails and keeps its position; the new call is output once at the next poll',
		async (odd) => {
			const trigger = await start();
			await trigger.activate();
			const agent = await createAgent(sandbox);
			const call = await placeCall(sandbox, agent);
			await endCall(sandbox, call.id);
			const before = trigger.nodeData;
			await sandbox.variants({ calls_answer: odd });

			await trigger.poll();

			expect(trigger.emittedIds).toEqual([]);
			expect(trigger.pollErrors).toHaveLength(1);
			expect(trigger.nodeData).toEqual(before);

			await sandbox.variants({});
			await trigger.poll();
			await trigger.poll();
			expect(trigger.emittedIds).toEqual([call.id]);
		},
	);
});
