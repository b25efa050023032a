import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	callErrorItem,
	callsNotFetchedError,
	getCallsInFull,
	listCalls,
	type CallFilter,
} from '../../../shared/api';
import { agentLocator, optionsCollection, returnAllOrLimit } from '../../../shared/descriptions';
import { listLimit } from '../../../shared/parameters';
import { withPartialOutput } from '../../../shared/partialOutput';
import {
	readTranscriptFormat,
	transcriptFormatOption,
	withTranscriptFormat,
} from '../../../shared/transcript';
import { resolveAgentId, type AgentLocatorValue } from '../../../shared/resolveAgent';
import { InputValidator } from '../../../shared/validation';

const MAX_TRANSCRIPT_CONCURRENCY = 20;

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	agentLocator({
		required: false,
		description: 'Only calls of this agent. Leave empty for the calls of all agents.',
	}),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Client Number',
				name: 'clientNumber',
				type: 'string',
				default: '',
				placeholder: 'e.g. +14155550123',
				description: 'Only calls with this customer phone number (E.164)',
			},
		],
	},
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
	const filter: CallFilter = {};
	const agent = this.getNodeParameter('agent', itemIndex, {}) as AgentLocatorValue;
	if (typeof agent.value === 'string' && agent.value.trim() !== '')
		filter.agentId = await resolveAgentId(this, agent, { itemIndex });
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	if (typeof filters.clientNumber === 'string' && filters.clientNumber.trim() !== '') {
		filter.clientNumber = validate.e164(filters.clientNumber, 'Client Number');
	}
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
