import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { agentLocator, returnAllOrLimit } from '../../descriptions/shared';
import { mapWithConcurrency } from '../../helpers/concurrency';
import { listLimit } from '../../helpers/parameters';
import type { CallSummary } from '../../helpers/types';
import { InputValidator } from '../../helpers/validation';
import { paginateCursor } from '../../transport';
import { getCall } from './get.operation';

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
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
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
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const qs: IDataObject = {};
	const agentId = this.getNodeParameter('agent', itemIndex, '', { extractValue: true });
	if (typeof agentId === 'string' && agentId.trim() !== '') qs.agent_id = agentId.trim();
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	if (typeof filters.clientNumber === 'string' && filters.clientNumber.trim() !== '') {
		qs.client_number = validate.e164(filters.clientNumber, 'Client Number');
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

	const calls = await paginateCursor<CallSummary>(
		this,
		'/calls',
		'calls',
		qs,
		listLimit(this, itemIndex),
	);
	if (concurrency === 0) return calls;
	// The list shape keeps client_number, which the full record calls `to`; both stay in the output.
	return await mapWithConcurrency(calls, concurrency, async (call) => ({
		...call,
		...(await getCall(this, call.id)),
	}));
}
