import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getAgent } from '../../../shared/api/agents';
import { type NewCall } from '../../../shared/api/calls';
import {
	agentLocator,
	resolveAgent,
	type AgentLocatorValue,
	type ResolvedAgent,
} from '../../../shared/parameters/agent';
import { optionsCollection } from '../../../shared/parameters/collections';
import type { Call } from '../../../shared/types';
import { dataProblemError } from '../../../shared/errors';
import { labelsOf } from '../../../shared/fields';
import { readOncePerRun } from '../../../shared/runCache';
import { INPUT_LIMITS, InputValidator } from '../../../shared/validation';
import {
	allowedDestinationsOption,
	checkAllowedDestination,
	toolUseOf,
} from './allowedDestinations';
import { batchOptions, runCallBatch, type BatchSeams } from './callBatch';
import { maxCallsPerRun, maxCallsPerRunOption } from './maxCallsPerRun';
import { placeCall } from './placeCall';
import { placeOnce, type ItemCall } from './placeOnce';
import { ledgerOf, markEnded, runIndexOf, slotOf } from './callLedger';
import { skipOffNotice, skipRecentlyCalledProperty, skipWindowMinutes } from './skipRecentlyCalled';
import { waitForEnd, waitForEndOptions, waitSettings, type WaitSettings } from './waitForEnd';

const properties: INodeProperties[] = [
	agentLocator({
		displayName: 'From (Agent)',
		name: 'from',
		description:
			'The agent that places the call: the call is made from its phone number. Pick it, give its ID, its exact name, or its phone number.',
		modes: [
			...(agentLocator().modes ?? []),
			{
				displayName: 'By Phone Number',
				name: 'phoneNumber',
				type: 'string',
				placeholder: 'e.g. +14155550100',
			},
		],
	}),
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description: 'Phone number to call, in E.164 form',
	},
	{
		displayName: 'Context',
		name: 'context',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		description:
			"What the agent should know for this call, e.g. the customer's name and the reason for calling",
	},
	skipRecentlyCalledProperty,
	skipOffNotice,
	optionsCollection([
		allowedDestinationsOption,
		maxCallsPerRunOption,
		{
			displayName: 'User Speaks First',
			name: 'userSpeaksFirst',
			type: 'boolean',
			default: false,
			description: 'Whether the agent waits for the person called to speak first',
		},
		...waitForEndOptions,
		...batchOptions,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['create'] } },
	properties,
);

/** The labels of POST /call's fields, read from the parameters that fill them. */
export const CALL_FIELDS = labelsOf(properties, {
	from: 'from',
	to: 'to',
	context: 'context',
	user_speaks_first: 'options.userSpeaksFirst',
});

/** The phone number of an agent known by ID, fetched once per node run and agent. */
async function fetchedPhoneNumber(context: IExecuteFunctions, agentId: string): Promise<string> {
	return await readOncePerRun(context, `phoneNumber:${agentId}`, async () => {
		const agent = await getAgent(context, agentId);
		return agent.phone_number ?? '';
	});
}

/** The number the agent calls from; an agent found by name brings it from the agent list. */
async function agentPhoneNumber(
	context: IExecuteFunctions,
	{ id, agent }: ResolvedAgent,
	itemIndex: number,
): Promise<string> {
	const number = agent ? (agent.phone_number ?? '') : await fetchedPhoneNumber(context, id);
	if (!number) {
		const message = `Agent "${agent?.name ?? id}" has no phone number to call from`;
		throw dataProblemError(context.getNode(), { message, itemIndex });
	}
	return number;
}

/** What the item asks for, checked before anything is sent: no request is made here. */
interface CallRequest {
	from: AgentLocatorValue;
	to: string;
	context: string;
	options: IDataObject;
	wait: WaitSettings | undefined;
	/** Max Calls per Run; 0: no limit. */
	maxCalls: number;
	/** Skip Numbers Called in the Last (Minutes); 0: off. */
	windowMinutes: number;
}

/** From in every mode, checked on its face: a number in E.164, or a non-empty ID or name. */
function checkFrom(
	validate: InputValidator,
	from: AgentLocatorValue | undefined,
): AgentLocatorValue {
	const mode = from?.mode ?? 'id';
	if (mode === 'phoneNumber') return { mode, value: validate.e164(from?.value, CALL_FIELDS.from) };
	if (mode === 'name')
		return {
			mode,
			value: validate.nonEmptyString(from?.value, CALL_FIELDS.from, INPUT_LIMITS.nameLength),
		};
	return { mode, value: validate.id(from?.value, CALL_FIELDS.from) };
}

function readCallRequest(context: IExecuteFunctions, itemIndex: number): CallRequest {
	const validate = new InputValidator(context.getNode(), itemIndex);
	const from = checkFrom(
		validate,
		context.getNodeParameter('from', itemIndex) as AgentLocatorValue | undefined,
	);
	const to = validate.e164(context.getNodeParameter('to', itemIndex), CALL_FIELDS.to);
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	checkAllowedDestination(validate, to, options.allowedDestinations, toolUseOf(context), {
		field: CALL_FIELDS.to,
		outcome: 'no call was placed',
		where: 'Call → Create → Options',
	});
	const maxCalls = maxCallsPerRun(context, validate, options);
	const windowMinutes = skipWindowMinutes(context, validate, itemIndex);
	const callContext = validate.text(
		context.getNodeParameter('context', itemIndex, ''),
		CALL_FIELDS.context,
	);
	const wait = waitSettings(context, itemIndex, options);
	return { from, to, context: callContext, options, wait, maxCalls, windowMinutes };
}

/** The item's call with its agent looked up: done for every item before the first call is placed. */
interface PreparedCall extends ItemCall {
	wait: WaitSettings | undefined;
}

async function prepareCall(
	context: IExecuteFunctions,
	itemIndex: number,
	request: CallRequest,
): Promise<PreparedCall> {
	const validate = new InputValidator(context.getNode(), itemIndex);
	let agentId: string | undefined;
	let fromNumber: string;
	if (request.from.mode === 'phoneNumber') {
		fromNumber = request.from.value as string;
	} else {
		const agent = await resolveAgent(context, request.from, { field: CALL_FIELDS.from, itemIndex });
		agentId = agent.id;
		fromNumber = await agentPhoneNumber(context, agent, itemIndex);
	}
	const body: NewCall = { from: fromNumber, to: request.to };
	if (request.context !== '') body.context = request.context;
	if (request.options.userSpeaksFirst !== undefined)
		body.user_speaks_first = request.options.userSpeaksFirst === true;
	validate.requestBody(body, CALL_FIELDS);
	return {
		body,
		agent: `${request.from.mode}:${String(request.from.value)}`,
		filter: agentId ? { clientNumber: request.to, agentId } : { clientNumber: request.to },
		itemIndex,
		maxCalls: request.maxCalls,
		windowMinutes: request.windowMinutes,
		wait: request.wait,
	};
}

/**
 * Place once (placeOnce.ts: re-runs, concurrent uses, the skip window, Max Calls per Run), then wait.
 * The items of a call that ended carry when n8n placed it and saw it end.
 */
async function createOne(
	context: IExecuteFunctions,
	item: PreparedCall,
	seams: BatchSeams = {},
): Promise<Call> {
	const validate = new InputValidator(context.getNode(), item.itemIndex);
	const call = await placeOnce(context, validate, item, async (record) => {
		return await placeCall(context, record, item, { observer: seams.pace, fields: CALL_FIELDS });
	});
	// A call skipped as placed before is output as found: this run did not place it, so it does not wait.
	if (call.skipped === true || !item.wait) return call;
	const placedAt = new Date().toISOString();
	const ended = await waitForEnd(context, call, item.wait, item.itemIndex, seams.schedule);
	if (!ended.ended) return { ...ended, placed_at: placedAt };
	markEnded(ledgerOf(context), call.id);
	return { ...ended, placed_at: placedAt, end_seen_at: new Date().toISOString() };
}

/** All items at once: Calls at Once and the pace, each item through `createOne` (callBatch.ts). */
export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const ledger = ledgerOf(this);
	return await runCallBatch(
		this,
		{
			check: readCallRequest,
			prepare: prepareCall,
			run: createOne,
			liveCallOf: (context, itemIndex, request) => {
				const record = ledger.records[slotOf(context, itemIndex, request.to)];
				return record?.state === 'placed' && record.run === runIndexOf(context)
					? record.callId
					: undefined;
			},
			holdsSlot: (request) => request.wait !== undefined,
		},
		ledger,
	);
}
