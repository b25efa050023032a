import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { neverConnected } from '../../../../../shared/callStatus';
import { isOutcomeUnknown } from '../../../../../shared/errors';
import type { Call } from '../../../../../shared/types';
import type { InputValidator } from '../../../../../shared/validation';
import { leadTime, nextCallTime, type ItemHours } from '../callingHours/window';
import { fromVersion13, OUTCOMES_VERSION, type CallRecord } from '../model';
import { mayHaveCalled } from '../records/callLedger';

/** What happened to a lead, one per output item (1.3): mapped with `next_call_at` straight into a CRM. */
export type Outcome = 'placed' | 'ended' | 'retry_due' | 'deferred' | 'skipped' | 'failed';

export function outcomeFields(outcome: Outcome, attempt: number, more: IDataObject = {}) {
	return { outcome, attempt, ...more } as IDataObject;
}

/** A failed item's fields: a call its record may have placed makes it "may have been placed", never blind. */
export function failedOutcome(
	error: unknown,
	attempt: number,
	record: CallRecord | undefined,
): IDataObject {
	const placed = mayHaveCalled(record) || isOutcomeUnknown(error);
	return outcomeFields('failed', attempt, {
		failure: placed ? 'may_have_been_placed' : 'not_placed',
		...(placed && record?.callId ? { call_id: record.callId } : {}),
	});
}

const MAX_ATTEMPTS = 5;
const FIELD = 'Call Again When the Call Fails';
const LABELS = {
	attempts: `${FIELD} → Attempts`,
	minutesBetween: `${FIELD} → Minutes Apart`,
	successStatuses: `${FIELD} → Success Statuses`,
	attempt: `${FIELD} → Attempt Number`,
	previousCallId: `${FIELD} → Previous Call ID`,
};

export const callAgainOption: INodeProperties = {
	displayName: FIELD,
	name: 'callAgain',
	type: 'fixedCollection',
	default: {},
	placeholder: 'Add Call Again',
	description:
		'With Wait for the Call to End: a call that ended without success is output with "outcome": "retry_due", the next attempt\'s number in "attempt" and its time in "next_call_at", until the attempts are used. The workflow keeps them with the lead and feeds the lead back when it is due.',
	displayOptions: fromVersion13,
	options: [
		{
			displayName: 'Settings',
			name: 'settings',
			values: [
				{
					displayName: 'Attempt Number',
					name: 'attempt',
					type: 'string',
					default: '={{ $json.attempt || 1 }}',
					description:
						'Which attempt this item is, as the lead keeps it (1 for a new lead). Running the workflow again never places an attempt twice.',
				},
				{
					displayName: 'Attempts',
					name: 'attempts',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_ATTEMPTS },
					default: 3,
					description: `How many calls a lead gets at most, the first included (1: never again; at most ${MAX_ATTEMPTS})`,
				},
				{
					displayName: 'Minutes Apart',
					name: 'minutesBetween',
					type: 'number',
					typeOptions: { minValue: 0 },
					default: 60,
					description:
						'How many minutes after a failed call the next attempt is due; outside Calling Hours it moves to the start of the next window',
				},
				{
					displayName: 'Previous Call ID',
					name: 'previousCallId',
					type: 'string',
					default: '={{ $json.call_id }}',
					description:
						"From attempt 2 on: the ID of the lead's previous call, as the lead keeps it. If the number was called since, the attempt is not placed again.",
				},
				{
					displayName: 'Success Statuses',
					name: 'successStatuses',
					type: 'string',
					default: 'completed',
					description:
						'End statuses that count as reached, separated by commas; a call that ends with any other status gets another attempt while any are left',
				},
			],
		},
	],
};

/** The item's Call Again settings, checked; without the option a lead has one attempt. */
export interface ItemAttempt {
	attempt: number;
	attempts: number;
	minutesBetween: number;
	success: ReadonlySet<string>;
	previousCallId?: string;
}

export function readCallAgain(
	context: IExecuteFunctions,
	validate: InputValidator,
	options: IDataObject,
	waiting: boolean,
): ItemAttempt {
	const settings = (options.callAgain as IDataObject | undefined)?.settings as
		| IDataObject
		| undefined;
	const none = { attempt: 1, attempts: 1, minutesBetween: 0, success: new Set<string>() };
	if (context.getNode().typeVersion < OUTCOMES_VERSION || !settings) return none;
	if (!waiting) {
		validate.fail(
			FIELD,
			'needs Wait for the Call to End: only a call seen to end can have failed',
			'Add Wait for the Call to End to the Options, or remove Call Again.',
		);
	}
	const attempts = validate.integer(settings.attempts ?? 3, LABELS.attempts, 1, MAX_ATTEMPTS);
	const minutes = Number(settings.minutesBetween ?? 60);
	if (!Number.isFinite(minutes) || minutes < 0)
		validate.fail(
			LABELS.minutesBetween,
			`must be 0 or more (got ${JSON.stringify(settings.minutesBetween)})`,
		);
	const success = validate.stringList(
		settings.successStatuses ?? 'completed',
		LABELS.successStatuses,
	);
	if (success.length === 0) validate.fail(LABELS.successStatuses, 'must name at least one status');
	const given = settings.attempt;
	const attempt = validate.integer(
		given === undefined || given === null || given === '' ? 1 : given,
		LABELS.attempt,
		1,
		attempts,
	);
	const statuses = new Set(success.map((status) => status.toLowerCase()));
	const result: ItemAttempt = { attempt, attempts, minutesBetween: minutes, success: statuses };
	if (attempt > 1)
		result.previousCallId = validate.id(settings.previousCallId, LABELS.previousCallId);
	return result;
}

/** The attempt an item whose input failed its check gave, as far as it can be read. */
export function attemptGiven(context: IExecuteFunctions, itemIndex: number): number {
	try {
		const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const settings = (options.callAgain as IDataObject | undefined)?.settings as IDataObject;
		const attempt = Number(settings?.attempt ?? 1);
		return Number.isInteger(attempt) && attempt >= 1 ? attempt : 1;
	} catch {
		return 1;
	}
}

/** A call seen to end, or never connected within the wait (its person not reached: failed for Call Again). */
export function endedOutcome(
	call: Call,
	attempt: ItemAttempt,
	hours: ItemHours | undefined,
	endSeenMs: number,
	fallbackZone: string,
): IDataObject {
	const status = String(call.status ?? '').trim();
	const reached = attempt.success.has(status.toLowerCase());
	if (attempt.attempts <= 1 || reached) return outcomeFields('ended', attempt.attempt);
	const how = neverConnected(call) ? 'never connected' : `ended "${status}"`;
	const left = attempt.attempts - attempt.attempt;
	if (left <= 0) {
		const reason = `Attempt ${attempt.attempt} of ${attempt.attempts} ${how}: no attempt is left.`;
		return outcomeFields('ended', attempt.attempt, { reason });
	}
	const dueMs = nextCallTime(hours, endSeenMs + attempt.minutesBetween * 60_000);
	if (dueMs === undefined) {
		const reason = `Attempt ${attempt.attempt} ${how}, and Calling Hours do not open again within a week: not called again.`;
		return outcomeFields('ended', attempt.attempt, { reason });
	}
	const nextCallAt = leadTime(hours, dueMs, fallbackZone);
	const reason = `Attempt ${attempt.attempt} of ${attempt.attempts} ${how}: attempt ${attempt.attempt + 1} is due at ${nextCallAt}.`;
	return outcomeFields('retry_due', attempt.attempt + 1, {
		next_call_at: nextCallAt,
		retry_at: nextCallAt,
		reason,
	});
}
