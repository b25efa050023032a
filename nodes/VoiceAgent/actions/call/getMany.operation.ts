import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listCalls } from '../../../shared/api/calls';
import {
	callErrorItem,
	callsNotFetchedError,
	getCallsInFull,
} from '../../../shared/api/callsInFull';
import { callListFilters, readCallFilter } from '../../../shared/parameters/callFilter';
import { optionsCollection } from '../../../shared/parameters/collections';
import { readLimit, returnAllOrLimit } from '../../../shared/parameters/returnAllOrLimit';
import {
	readTranscriptFormat,
	readSystemMessages,
	systemMessagesOption,
	transcriptFormatOption,
	withTranscriptFormat,
} from '../../../shared/parameters/transcriptFormat';
import { InputValidator } from '../../../shared/validation';

/** The most GET /call requests a user may allow in flight, and how many the node allows unless told. */
const MAX_TRANSCRIPT_CONCURRENCY = 100;
const DEFAULT_TRANSCRIPT_CONCURRENCY = 50;

const concurrencyOption: INodeProperties = {
	displayName: 'Max Requests in Parallel',
	name: 'transcriptConcurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_TRANSCRIPT_CONCURRENCY },
	default: DEFAULT_TRANSCRIPT_CONCURRENCY,
	description:
		'The most calls fetched at once when including transcripts. The node starts with a few and adapts: more while the service answers quickly, fewer when it slows down or rate-limits (429).',
	displayOptions: { show: { includeTranscripts: [true] } },
};

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...callListFilters(),
	optionsCollection([
		{
			displayName: 'Include Transcripts',
			name: 'includeTranscripts',
			type: 'boolean',
			default: false,
			description:
				'Whether to fetch each call in full (transcript, duration, end time): one extra request per call',
		},
		concurrencyOption,
		transcriptFormatOption({ displayOptions: { show: { includeTranscripts: [true] } } }),
		{ ...systemMessagesOption, displayOptions: { show: { includeTranscripts: [true] } } },
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const filter = await readCallFilter(this, { itemIndex });
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const concurrency =
		options.includeTranscripts === true
			? validate.integer(
					options.transcriptConcurrency ?? DEFAULT_TRANSCRIPT_CONCURRENCY,
					concurrencyOption.displayName,
					1,
					MAX_TRANSCRIPT_CONCURRENCY,
				)
			: 0;

	const calls = await listCalls(this, filter, readLimit(this, itemIndex));
	if (concurrency === 0) return calls;
	const format = readTranscriptFormat(this.getNode(), options.transcriptFormat, itemIndex);
	const { results, failures } = await getCallsInFull(
		this,
		calls.map((call) => call.id),
		{ maxConcurrency: concurrency },
	);
	// The list shape keeps client_number, which the full record calls `to`; both stay in the output.
	const items: IDataObject[] = [];
	calls.forEach((call, index) => {
		const full = results[index];
		if (full)
			items.push(
				withTranscriptFormat({ ...call, ...full }, format, {
					systemMessages: readSystemMessages(options),
					decoded: full,
				}),
			);
	});
	if (failures.length === 0) return items;
	// One call's failure never discards the calls that were fetched.
	if (this.continueOnFail()) return [...items, ...failures.map(callErrorItem)];
	throw callsNotFetchedError(this, failures, calls.length, {
		itemIndex,
		remedy:
			'With "On Error: Continue" the node outputs the calls it fetched and an error item for each of these.',
	});
}
