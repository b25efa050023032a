import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, sleep, updateDisplayOptions } from 'n8n-workflow';

import { agentLocator } from '../../descriptions/shared';
import type { Agent, Call, CallSummary } from '../../helpers/types';
import { InputValidator } from '../../helpers/validation';
import { isOutcomeUnknown, paginateCursor, voiceAgentApiRequest } from '../../transport';

const properties: INodeProperties[] = [
	agentLocator({
		displayName: 'From (Agent)',
		name: 'from',
		description:
			'The agent that places the call: the call is made from its phone number. Pick it, give its ID, or give its phone number.',
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
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'User Speaks First',
				name: 'userSpeaksFirst',
				type: 'boolean',
				default: false,
				description: 'Whether the agent waits for the person called to speak first',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['create'] } },
	properties,
);

/** How many of the latest calls to the number are remembered before dialling. */
const RECENT_CALLS = 20;
/** Waits before each look for a call whose creation answer was lost: the service may still be at it. */
const LOOKUP_DELAYS_MS = [0, 1_000, 3_000];

const agentPhoneNumbers = new WeakMap<IExecuteFunctions, Map<string, string>>();

/** The agent's phone number, fetched once per node run and agent. */
async function agentPhoneNumber(context: IExecuteFunctions, agentId: string): Promise<string> {
	let cache = agentPhoneNumbers.get(context);
	if (!cache) {
		cache = new Map();
		agentPhoneNumbers.set(context, cache);
	}
	let phone = cache.get(agentId);
	if (phone === undefined) {
		const agent = await voiceAgentApiRequest<Agent>(context, {
			method: 'GET',
			path: '/agent',
			qs: { id: agentId },
			idempotent: true,
			notFound: `Agent "${agentId}"`,
		});
		phone = agent.phone_number ?? '';
		if (!phone) {
			throw new NodeApiError(context.getNode(), { id: agentId } as JsonObject, {
				message: `Agent "${agentId}" has no phone number to call from`,
			});
		}
		cache.set(agentId, phone);
	}
	return phone;
}

async function recentCalls(
	context: IExecuteFunctions,
	filter: IDataObject,
): Promise<CallSummary[]> {
	return await paginateCursor<CallSummary>(context, '/calls', 'calls', filter, RECENT_CALLS);
}

/** After an ambiguous failure: the call the attempt created, if the call list shows one. */
async function findPlacedCall(
	context: IExecuteFunctions,
	filter: IDataObject,
	knownIds: Set<string>,
	callContext: string,
): Promise<Call | undefined> {
	for (const delay of LOOKUP_DELAYS_MS) {
		if (delay > 0) await sleep(delay);
		const placed = (await recentCalls(context, filter)).find(
			(call) => !knownIds.has(call.id) && (call.context ?? '') === callContext,
		);
		if (placed) {
			return await voiceAgentApiRequest<Call>(context, {
				method: 'GET',
				path: '/call',
				qs: { id: placed.id },
				idempotent: true,
				notFound: `Call "${placed.id}"`,
			});
		}
	}
	return undefined;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Call> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const from = this.getNodeParameter('from', itemIndex) as { mode?: string; value?: unknown };
	const fromValue = validate.nonEmptyString(from?.value, 'From (Agent)');
	const to = validate.e164(this.getNodeParameter('to', itemIndex), 'To');
	const callContext = String(this.getNodeParameter('context', itemIndex, '') ?? '');
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;

	let agentId: string | undefined;
	let fromNumber: string;
	if (from.mode === 'phoneNumber') {
		fromNumber = validate.e164(fromValue, 'From (Agent)');
	} else {
		agentId = fromValue;
		fromNumber = await agentPhoneNumber(this, agentId);
	}
	const body: IDataObject = { from: fromNumber, to };
	if (callContext !== '') body.context = callContext;
	if (options.userSpeaksFirst !== undefined)
		body.user_speaks_first = options.userSpeaksFirst === true;

	// A call placed twice phones a person twice, so POST /call is never repeated after an ambiguous
	// failure. Instead the calls that existed before are remembered (by ID, not by clock, since the
	// service's timestamps are opaque) and a new one in the list afterwards is the one this attempt made.
	const filter: IDataObject = agentId
		? { client_number: to, agent_id: agentId }
		: { client_number: to };
	const knownIds = new Set((await recentCalls(this, filter)).map((call) => call.id));
	try {
		return await voiceAgentApiRequest<Call>(this, {
			method: 'POST',
			path: '/call',
			body,
			idempotent: false,
		});
	} catch (error) {
		if (!isOutcomeUnknown(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
		const placed = await findPlacedCall(this, filter, knownIds, callContext);
		if (placed) return placed;
		throw new NodeApiError(this.getNode(), { to } as JsonObject, {
			message: `The call to ${to} may not have been placed: ${(error as Error).message}`,
			description:
				`The service did not confirm the call, and no new call from ${fromNumber} to ${to} appeared in the call list afterwards. ` +
				'The node does not try again on its own, so that nobody is phoned twice: check the call list before retrying.',
			itemIndex,
		});
	}
}
