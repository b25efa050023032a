import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { CallFilter } from '../shared/api';
import { CREDENTIAL_TYPE } from '../shared/credential';
import { readCallFilter } from '../shared/parameters/callFilter';
import { readTranscriptFormat, type TranscriptFormat } from '../shared/parameters/transcriptFormat';
import type { CallSummary } from '../shared/types';
import { InputValidator } from '../shared/validation';

type CallHistoryEvent = 'callEnded' | 'newCall';
type StartFrom = 'now' | 'allHistory' | 'lastDays';

export const MAX_START_FROM_DAYS = 3_650;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TriggerSettings {
	event: CallHistoryEvent;
	filter: CallFilter;
	startFrom: StartFrom;
	days: number;
	transcriptFormat: TranscriptFormat;
	/**
	 * What the saved position belongs to: the event, the filters (the agent by ID) and the credential. Changing any of
	 * them starts afresh (from Start From), since the calls seen so far say nothing about another list.
	 */
	scope: string;
}

export async function readSettings(context: IPollFunctions): Promise<TriggerSettings> {
	const validate = new InputValidator(context.getNode());
	const event = validate.oneOf(context.getNodeParameter('event', 'callEnded'), 'Event', [
		'callEnded',
		'newCall',
	] as const);
	const filter = await readCallFilter(context, { request: { purpose: 'poll' } });
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const startFrom = validate.oneOf(options.startFrom ?? 'now', 'Start From', [
		'now',
		'allHistory',
		'lastDays',
	] as const);
	const days =
		startFrom === 'lastDays'
			? validate.integer(options.startFromDays ?? 7, 'Days', 1, MAX_START_FROM_DAYS)
			: 0;
	const transcriptFormat = readTranscriptFormat(context.getNode(), options.transcriptFormat);
	const credentialId = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? null;
	const scope = JSON.stringify({ event, ...filter, credentialId });
	return { event, filter, startFrom, days, transcriptFormat, scope };
}

/**
 * Whether a call is older than the "last N days" of Start From: the one place the trigger compares n8n's
 * clock with a timestamp of the service, so differing clocks only move the edge of a one-time backfill.
 */
export function olderThanDays(days: number, now: number = Date.now()) {
	const cutoff = now - days * DAY_MS;
	return (call: CallSummary): boolean => {
		const created = Date.parse(String(call.created_at));
		return Number.isFinite(created) && created < cutoff;
	};
}
