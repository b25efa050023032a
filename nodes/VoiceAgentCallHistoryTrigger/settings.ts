import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import type { CallFilter } from '../shared/api/calls';
import { CREDENTIAL_TYPE } from '../shared/credential';
import { labelsByName } from '../shared/fields';
import { readCallFilter } from '../shared/parameters/callFilter';
import {
	readSystemMessages,
	readTranscriptFormat,
	type TranscriptFormat,
} from '../shared/parameters/transcriptFormat';
import { latestInstantOf } from '../shared/serviceTime';
import type { CallSummary } from '../shared/types';
import { InputValidator } from '../shared/validation';

type CallHistoryEvent = 'callEnded' | 'newCall';
type StartFrom = 'now' | 'allHistory' | 'lastDays';

const MAX_START_FROM_DAYS = 3_650;
/** Default and most of Max Calls per Poll: the calls a poll takes from the list, and so its memory. */
const DEFAULT_MAX_CALLS_PER_POLL = 1_000;
export const MOST_CALLS_PER_POLL = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Which calls start the workflow. Not labelled "Event": n8n's node panel turns a trigger's Event list
 * into actions and then drops " Trigger" from the node's name, so the panel would name this node
 * otherwise than its canvas, the README and the docs.
 */
export const eventProperty: INodeProperties = {
	displayName: 'Watch For',
	name: 'event',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Call Ended',
			value: 'callEnded',
			description:
				'A call ended, whatever its end status (completed, failed, busy, no-answer, …): output in full, with transcript, duration and end time',
		},
		{
			name: 'New Call',
			value: 'newCall',
			description: 'A call was created: output as the call list shows it',
		},
	],
	default: 'callEnded',
	description: 'Which calls start the workflow',
};

/** Where the first poll starts. */
export const startFromOptions: INodeProperties[] = [
	{
		displayName: 'Start From',
		name: 'startFrom',
		type: 'options',
		options: [
			{
				name: 'All History',
				value: 'allHistory',
				description: 'The first poll outputs every call of the history, oldest first',
			},
			{
				name: 'Last Days',
				value: 'lastDays',
				description: 'The first poll outputs the calls created in the last days, oldest first',
			},
			{
				name: 'Now',
				value: 'now',
				description: 'Only calls from the first poll on',
			},
		],
		default: 'now',
		description:
			'Where the first poll starts (when the workflow is first published, or after Watch For, the filters or the credential changed)',
	},
	{
		displayName: 'Days',
		name: 'startFromDays',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_START_FROM_DAYS },
		default: 7,
		description: 'How many days back the first poll starts',
		displayOptions: { show: { startFrom: ['lastDays'] } },
	},
];

/** How much one poll takes on: a backfill and a long gap are read over several polls. */
export const maxCallsPerPollOption: INodeProperties = {
	displayName: 'Max Calls per Poll',
	name: 'maxCallsPerPoll',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MOST_CALLS_PER_POLL },
	default: DEFAULT_MAX_CALLS_PER_POLL,
	description:
		'The most new calls one poll takes from the call list (and so the most items of one execution, besides calls that were in progress). A larger history, e.g. All History, continues at the next polls.',
};

/** Call Ended: which end statuses start the workflow; an open list, since the service's set is not published. */
export const endStatusesOption: INodeProperties = {
	displayName: 'End Statuses',
	name: 'endStatuses',
	type: 'string',
	default: '',
	placeholder: 'e.g. completed, no-answer, busy',
	description:
		'Only calls that ended with one of these statuses, separated by commas (any status the service gives). Empty: every call that ended.',
	displayOptions: { show: { '/event': ['callEnded'] } },
};

const OPTION_LABELS = labelsByName([...startFromOptions, maxCallsPerPollOption]);

export interface TriggerSettings {
	event: CallHistoryEvent;
	filter: CallFilter;
	startFrom: StartFrom;
	days: number;
	transcriptFormat: TranscriptFormat;
	/** Include System Messages: the transcript's system messages output as `system_messages`. */
	systemMessages: boolean;
	/** The most new calls a poll takes from the list. */
	maxCallsPerPoll: number;
	/** Call Ended: the end statuses to output (trimmed, lower case); empty: every end status. */
	endStatuses: ReadonlySet<string>;
	/**
	 * What the saved position belongs to: the event, the filters (the agent by ID) and the credential. Changing any of
	 * them starts afresh (from Start From), since the calls seen so far say nothing about another list.
	 */
	scope: string;
}

export async function readSettings(context: IPollFunctions): Promise<TriggerSettings> {
	const validate = new InputValidator(context.getNode());
	const event = validate.oneOf(
		context.getNodeParameter('event', 'callEnded'),
		eventProperty.displayName,
		['callEnded', 'newCall'] as const,
	);
	const filter = await readCallFilter(context, { request: { purpose: 'poll' } });
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const startFrom = validate.oneOf(options.startFrom ?? 'now', OPTION_LABELS.startFrom, [
		'now',
		'allHistory',
		'lastDays',
	] as const);
	const days =
		startFrom === 'lastDays'
			? validate.integer(
					options.startFromDays ?? 7,
					OPTION_LABELS.startFromDays,
					1,
					MAX_START_FROM_DAYS,
				)
			: 0;
	const transcriptFormat = readTranscriptFormat(context.getNode(), options.transcriptFormat);
	const maxCallsPerPoll = validate.integer(
		options.maxCallsPerPoll ?? DEFAULT_MAX_CALLS_PER_POLL,
		OPTION_LABELS.maxCallsPerPoll,
		1,
		MOST_CALLS_PER_POLL,
	);
	const endStatuses = new Set(
		String(options.endStatuses ?? '')
			.split(',')
			.map(normalStatus)
			.filter((status) => status !== ''),
	);
	const credentialId = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? null;
	const scope = JSON.stringify({ event, ...filter, credentialId });
	const systemMessages = readSystemMessages(options);
	return {
		...{ event, filter, startFrom, days, transcriptFormat, systemMessages },
		...{ maxCallsPerPoll, endStatuses, scope },
	};
}

/** A status as End Statuses compares it: as given, without surrounding spaces or case. */
export function normalStatus(status: unknown): string {
	return typeof status === 'string' ? status.trim().toLowerCase() : '';
}

/**
 * The start of the "last N days" of Start From, by n8n's clock: fixed when the backfill starts, so it does
 * not move while the backfill runs over several polls.
 */
export function startOfLastDays(days: number, now: number = Date.now()): number {
	return now - days * DAY_MS;
}

/**
 * Whether a call was created before the start of Last Days: the one place the trigger compares n8n's
 * clock with a timestamp of the service, so differing clocks only move the edge of a one-time backfill.
 * A time without a zone is read as late as it can be (serviceTime.ts), so the edge never drops a call
 * whatever zone the service meant; a date in another form is read as JavaScript reads it.
 */
export function createdBefore(cutoff: number) {
	return (call: CallSummary): boolean => {
		const latest = latestInstantOf(call.created_at);
		const created = Number.isNaN(latest) ? Date.parse(String(call.created_at)) : latest;
		return Number.isFinite(created) && created < cutoff;
	};
}
