import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	callErrorItem,
	callsNotFetchedError,
	getCallsInFull,
	listCalls,
} from '../../../shared/api';
import { callListFilters, optionsCollection, returnAllOrLimit } from '../../../shared/descriptions';
import { listLimit, readCallFilter } from '../../../shared/parameters';
import { withPartialOutput } from '../../../shared/partialOutput';
import {
	readTranscriptFormat,
	transcriptFormatOption,
	withTranscriptFormat,
} from '../../../shared/transcript';
import type { AgentLocatorValue } from '../../../shared/resolveAgent';
import { InputValidator } from '../../../shared/validation';

const MAX_TRANSCRIPT_CONCURRENCY = 20;

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
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
		{
			displayName: 'Transcript Requests in Parallel',
			name: 'transcriptConcurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_TRANSCRIPT_CONCURRENCY },
			default: 5,
			description: 'How many calls are fetched at once when including transcripts',
			displayOptions: { show: { includeTranscripts: [true] } },
		},
		transcriptFormatOption({ displayOptions: { show: { includeTranscripts: [true] } } }),
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const filter = await readCallFilter(
		this,
		this.getNodeParameter('agent', itemIndex, {}) as AgentLocatorValue,
		this.getNodeParameter('filters', itemIndex, {}) as IDataObject,
		{ itemIndex },
	);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const concurrency =
		options.includeTranscripts === true
			? validate.integer(
					options.transcriptConcurrency ?? 5,
					'Transcript Requests in Parallel',
					1,
					MAX_TRANSCRIPT_CONCURRENCY,
				)
			: 0;

	const calls = await listCalls(this, filter, listLimit(this, itemIndex));
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
		if (full) items.push(withTranscriptFormat({ ...call, ...full }, format));
	});
	if (failures.length > 0) {
		throw withPartialOutput(
			callsNotFetchedError(this, failures, calls.length, {
				itemIndex,
				remedy:
					'With "On Error: Continue" the node outputs the calls it fetched and an error item for each of these.',
			}),
			{ items, errors: failures.map(callErrorItem) },
		);
	}
	return items;
}
