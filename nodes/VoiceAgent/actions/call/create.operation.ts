import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import {
	createCall,
	getAgent,
	getCall,
	listCalls,
	type CallFilter,
	type NewCall,
} from '../../../shared/api';
import { agentLocator, optionsCollection } from '../../../shared/descriptions';
import {
	resolveAgent,
	type AgentLocatorValue,
	type ResolvedAgent,
} from '../../../shared/resolveAgent';
import {
	asNodeError,
	isOutcomeUnknown,
	waitUnlessCancelled,
	type RequestObserver,
} from '../../../shared/transport';
import type { Call } from '../../../shared/types';
import { CALL_FIELDS } from '../../../shared/fields';
import { readOncePerRun } from '../../../shared/runCache';
import { InputValidator } from '../../../shared/validation';
import { allowedDestinationsOption, checkAllowedDestination } from './allowedDestinations';
import { batchOptions, runCallBatch, type BatchSeams } from './callBatch';
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
	optionsCollection([
		allowedDestinationsOption,
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

/** How many of the latest calls to the number are remembered before dialling. */
const RECENT_CALLS = 20;
/** Waits before each look for a call whose creation answer was lost: the service may still be at it. */
const LOOKUP_DELAYS_MS = [0, 1_000, 3_000];

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
		throw new NodeApiError(context.getNode(), { httpCode: null } as JsonObject, {
			message: `Agent "${agent?.name ?? id}" has no phone number to call from`,
			itemIndex,
		});
	}
	return number;
}

/** After an ambiguous failure: the call the attempt created, if the call list shows one. */
async function findPlacedCall(
	context: IExecuteFunctions,
	filter: CallFilter,
	knownIds: Set<string>,
	callContext: string,
): Promise<Call | undefined> {
	for (const delay of LOOKUP_DELAYS_MS) {
		if (delay > 0) await waitUnlessCancelled(context, delay);
		const placed = (await listCalls(context, filter, RECENT_CALLS)).find(
			(call) => !knownIds.has(call.id) && (call.context ?? '') === callContext,
		);
		if (placed) return await getCall(context, placed.id);
	}
	return undefined;
}

/**
 * Places the call once. A call placed twice phones a person twice, so POST /call is never repeated
 * after an ambiguous failure. Instead the calls that existed before are remembered (by ID, not by
 * clock, since the service's timestamps are opaque) and a new one in the list afterwards is the one
 * this attempt made.
 */
async function placeCall(
	context: IExecuteFunctions,
	body: NewCall,
	filter: CallFilter,
	itemIndex: number,
	pace?: RequestObserver,
): Promise<Call> {
	const knownIds = new Set((await listCalls(context, filter, RECENT_CALLS)).map((call) => call.id));
	try {
		return await createCall(context, body, pace ? { observer: pace } : undefined);
	} catch (error) {
		if (!isOutcomeUnknown(error)) throw asNodeError(context, error);
		let placed: Call | undefined;
		let lookupFailure = '';
		try {
			placed = await findPlacedCall(context, filter, knownIds, body.context ?? '');
		} catch (lookupError) {
			// The look itself failing says nothing about the call: the warning below must stand.
			lookupFailure = ` Looking for it failed too: ${(lookupError as Error).message}.`;
		}
		if (placed) return placed;
		throw new NodeApiError(context.getNode(), { httpCode: null } as JsonObject, {
			message: `The call to ${body.to} may not have been placed: check the call list before retrying (${(error as Error).message})`,
			description:
				`The service did not confirm the call, and no new call from ${body.from} to ${body.to} could be found in the call list afterwards.${lookupFailure} ` +
				'The node does not try again on its own, so that nobody is phoned twice.',
			itemIndex,
		});
	}
}

/** What the item asks for, checked before anything is sent: no request is made here. */
export interface CallRequest {
	from: AgentLocatorValue;
	to: string;
	context: string;
	options: IDataObject;
	wait: WaitSettings | undefined;
}

export function readCallRequest(context: IExecuteFunctions, itemIndex: number): CallRequest {
	const validate = new InputValidator(context.getNode(), itemIndex);
	const from = context.getNodeParameter('from', itemIndex) as AgentLocatorValue;
	const to = validate.e164(context.getNodeParameter('to', itemIndex), 'To');
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	checkAllowedDestination(validate, to, options.allowedDestinations);
	const callContext = validate.text(context.getNodeParameter('context', itemIndex, ''), 'Context');
	const wait = waitSettings(context, itemIndex, options);
	if (from?.mode === 'phoneNumber') validate.e164(from.value, 'From (Agent)');
	return { from, to, context: callContext, options, wait };
}

/**
 * The whole of Create for one item, run alone (Calls at Once 1) or by the batch scheduler: validate →
 * place once → wait. The items of a call that ended carry when n8n placed it and saw it end.
 */
export async function createOne(
	context: IExecuteFunctions,
	itemIndex: number,
	seams: BatchSeams = {},
): Promise<Call> {
	const request = readCallRequest(context, itemIndex);
	const validate = new InputValidator(context.getNode(), itemIndex);
	let agentId: string | undefined;
	let fromNumber: string;
	if (request.from?.mode === 'phoneNumber') {
		fromNumber = validate.e164(request.from.value, 'From (Agent)');
	} else {
		const agent = await resolveAgent(context, request.from, { field: 'From (Agent)', itemIndex });
		agentId = agent.id;
		fromNumber = await agentPhoneNumber(context, agent, itemIndex);
	}
	const body: NewCall = { from: fromNumber, to: request.to };
	if (request.context !== '') body.context = request.context;
	if (request.options.userSpeaksFirst !== undefined)
		body.user_speaks_first = request.options.userSpeaksFirst === true;
	validate.requestBody(body, CALL_FIELDS);

	const filter: CallFilter = agentId
		? { clientNumber: request.to, agentId }
		: { clientNumber: request.to };
	const call = await placeCall(context, body, filter, itemIndex, seams.pace);
	if (!request.wait) return call;
	const placedAt = new Date().toISOString();
	const ended = await waitForEnd(context, call, request.wait, itemIndex, seams.schedule);
	return ended.ended
		? { ...ended, placed_at: placedAt, end_seen_at: new Date().toISOString() }
		: { ...ended, placed_at: placedAt };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Call> {
	return await createOne(this, itemIndex);
}

/** All items at once: Calls at Once and the pace, each item through `createOne` (callBatch.ts). */
export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runCallBatch(this, { check: readCallRequest, run: createOne });
}
