import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { hasEnded, neverConnected } from '../../../shared/callStatus';
import { withSystemMessagesOf } from '../../../shared/decode/call';
import { dataProblemError } from '../../../shared/errors';
import { labelsByName } from '../../../shared/fields';
import type { Call } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { BACKOFF_FACTOR, MAX_INTERVAL_S, WaitSchedule } from './waitSchedule';

const whileWaiting = { show: { waitForEnd: [true] } };

/**
 * The options of Call → Create and Call → Get that make the node wait for the call's outcome. Wait for
 * the Call to End is on when a builder adds it (the editor adds an option at its default). A node saved
 * without it does not wait: n8n fills no default into an option that was never added, and keeps one
 * that was turned off as false, so saved workflows keep what they did.
 */
export const waitForEndOptions: INodeProperties[] = [
	{
		displayName: 'Wait for the Call to End',
		name: 'waitForEnd',
		type: 'boolean',
		default: true,
		description:
			'Whether to wait until the call has ended and output it in full (status, duration, transcript), with "ended": true. The node checks the call every few seconds, less often as time goes on (at most every 30 seconds).',
	},
	{
		displayName: 'Max Wait (Minutes)',
		name: 'maxWaitMinutes',
		type: 'number',
		typeOptions: { minValue: 0.01 },
		default: 30,
		description: 'How long to wait for the call to end at most',
		displayOptions: whileWaiting,
	},
	{
		displayName: 'When the Max Wait Is Reached',
		name: 'onMaxWait',
		type: 'options',
		options: [
			{
				name: 'Output the Call As It Is',
				value: 'output',
				description: 'The call as it is at that moment, with "ended": false',
			},
			{ name: 'Fail', value: 'fail', description: 'An error for the item' },
		],
		default: 'output',
		description: 'What the item gets when the call has not ended within Max Wait',
		displayOptions: whileWaiting,
	},
	{
		displayName: 'First Check After (Seconds)',
		name: 'firstCheckSeconds',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_INTERVAL_S },
		default: 3,
		description: `How long to wait before checking the call the first time; each later check waits ${BACKOFF_FACTOR} times longer, up to ${MAX_INTERVAL_S} seconds`,
		displayOptions: whileWaiting,
	},
];

const LABELS = labelsByName(waitForEndOptions);

export interface WaitSettings {
	maxWaitMs: number;
	firstIntervalMs: number;
	failAtMaxWait: boolean;
}

/** How to wait, from the item's Options, checked before anything is sent; undefined: not waiting. */
export function waitSettings(
	context: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): WaitSettings | undefined {
	if (options.waitForEnd !== true) return undefined;
	const validate = new InputValidator(context.getNode(), itemIndex);
	const minutes = Number(options.maxWaitMinutes ?? 30);
	if (!Number.isFinite(minutes) || minutes <= 0) {
		validate.fail(
			LABELS.maxWaitMinutes,
			`must be a number above 0 (got ${JSON.stringify(options.maxWaitMinutes)})`,
		);
	}
	const firstSeconds = validate.integer(
		options.firstCheckSeconds ?? 3,
		LABELS.firstCheckSeconds,
		1,
		MAX_INTERVAL_S,
	);
	return {
		maxWaitMs: Math.round(minutes * 60_000),
		firstIntervalMs: firstSeconds * 1000,
		failAtMaxWait:
			validate.oneOf(options.onMaxWait ?? 'output', LABELS.onMaxWait, ['output', 'fail']) ===
			'fail',
	};
}

const asMinutes = (ms: number) =>
	`${Number((ms / 60_000).toFixed(2))} minute${ms === 60_000 ? '' : 's'}`;

/**
 * Checks the call (GET /call) until it has ended or the max wait is over, each check further apart, so
 * a wait of 30 minutes costs about 65 requests. A stopped workflow stops waiting at once. A check that
 * fails for a while (5xx, network) is no reason to give up on the call: the next check comes as planned.
 * The waits of a batch share one `schedule`; a single wait has one of its own.
 */
export async function waitForEnd(
	context: IExecuteFunctions,
	call: Call,
	settings: WaitSettings,
	itemIndex: number,
	schedule: WaitSchedule = new WaitSchedule(context),
): Promise<Call & { ended: boolean; never_connected?: boolean }> {
	const { latest, lastFailure } = await schedule.waitFor(call, {
		maxWaitMs: settings.maxWaitMs,
		firstIntervalMs: settings.firstIntervalMs,
	});
	// A call that never connected says so: its person was not reached (it may still ring at Max Wait).
	const connection = neverConnected(latest) ? { never_connected: true } : {};
	if (hasEnded(latest))
		return withSystemMessagesOf(latest, { ...latest, ended: true, ...connection });
	if (settings.failAtMaxWait) {
		const failure = lastFailure ? ` The last check failed: ${lastFailure.message}.` : '';
		const after = asMinutes(settings.maxWaitMs);
		throw dataProblemError(context.getNode(), {
			message: neverConnected(latest)
				? `The call ${call.id} had not connected after ${after}: it still rang (status ${latest.status}) [item ${itemIndex}]`
				: `The call ${call.id} had not ended after ${after} (status ${latest.status}) [item ${itemIndex}]`,
			description: `The call goes on: only the wait is over.${failure} Set a longer Max Wait, or choose to output the call as it is.`,
			itemIndex,
		});
	}
	return withSystemMessagesOf(latest, { ...latest, ended: false, ...connection });
}
