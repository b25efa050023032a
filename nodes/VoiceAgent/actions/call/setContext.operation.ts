import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { findLiveCalls, getCall, setCallContext, type CallFilter } from '../../../shared/api/calls';
import { isLive } from '../../../shared/callStatus';
import { dataProblemError } from '../../../shared/errors';
import { agentLocator, readOptionalAgentId } from '../../../shared/parameters/agent';
import { callIdField, readCallId } from '../../../shared/parameters/callId';
import { optionsCollection } from '../../../shared/parameters/collections';
import { labelsOf } from '../../../shared/fields';
import type { Call } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import {
	allowedContextDestinationsOption,
	checkAllowedDestination,
	checkToolRules,
	toolUseOf,
	type Refusal,
} from './allowedDestinations';

const byClientNumber = { show: { callBy: ['clientNumber'] } };

const clientNumberProperty: INodeProperties = {
	displayName: 'Client Number',
	name: 'clientNumber',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. +14155550123',
	description:
		"The customer's phone number (E.164). The call in progress with it gets the context; with several, the newest.",
	displayOptions: byClientNumber,
};

const properties: INodeProperties[] = [
	{
		displayName: 'Call',
		name: 'callBy',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'By ID', value: 'id', description: 'The call with this ID' },
			{
				name: 'Live Call of a Client Number',
				value: 'clientNumber',
				description: "The call in progress with a customer's phone number",
			},
		],
		default: 'id',
		description: 'How to find the call',
	},
	{
		...callIdField('ID of a call in progress'),
		displayOptions: { show: { callBy: ['id'] } },
	},
	clientNumberProperty,
	agentLocator({
		required: false,
		description: "Only this agent's calls. Leave empty for the calls of all agents.",
		displayOptions: byClientNumber,
	}),
	{
		displayName: 'Context',
		name: 'context',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		description:
			'The new context for the agent, replacing the current one while the call goes on. Only calls in progress accept it.',
	},
	optionsCollection([allowedContextDestinationsOption]),
];

const CONTEXT_REFUSED: Refusal = {
	field: "The call's number",
	outcome: 'no context was sent',
	where: 'Call → Set Context → Options',
};

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['setContext'] } },
	properties,
);

/** The labels of POST /call/context's fields, read from the parameters that fill them. */
const CONTEXT_FIELDS = labelsOf(properties, { id: 'callId', context: 'context' });

/** The live call with the client number (of the agent, if one is chosen): the newest when there are several. */
async function liveCallOf(
	context: IExecuteFunctions,
	clientNumber: string,
	itemIndex: number,
): Promise<{ call: Call; search: IDataObject }> {
	const filter: CallFilter = { clientNumber };
	const agentId = await readOptionalAgentId(context, { itemIndex });
	if (agentId !== undefined) filter.agentId = agentId;
	const ofAgent = filter.agentId ? ` from agent ${filter.agentId}` : '';
	const { live, latest } = await findLiveCalls(context, filter);
	if (live.length === 0) {
		throw dataProblemError(context.getNode(), {
			message: `No live call with ${clientNumber}${ofAgent} was found [item ${itemIndex}]`,
			description: latest
				? `Only a call in progress takes a new context. The latest call with this number (${latest.id}) is ${latest.status}.`
				: 'There is no call with this number in the call list.',
			itemIndex,
		});
	}
	const [newest, ...others] = live;
	if (others.length > 0) {
		context.addExecutionHints({
			message: `${live.length} calls with ${clientNumber} are in progress: the newest (${newest.id}) got the context`,
			location: 'outputPane',
		});
	}
	return {
		call: newest,
		search: {
			client_number: clientNumber,
			agent_id: filter.agentId ?? null,
			live_calls: live.length,
			chosen: 'newest',
			other_live_call_ids: others.map((call) => call.id),
		},
	};
}

/** Only a call in progress takes a new context: an ended one fails before anything is sent. */
function refuseEnded(context: IExecuteFunctions, call: Call, itemIndex: number): void {
	if (isLive(call)) return;
	throw dataProblemError(context.getNode(), {
		message: `The call ${call.id} has ended (status ${call.status}): no context was sent [item ${itemIndex}]`,
		description: 'Only a call in progress takes a new context.',
		itemIndex,
	});
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Call> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const context = validate.text(
		this.getNodeParameter('context', itemIndex),
		CONTEXT_FIELDS.context,
	);
	validate.nonEmptyString(context, CONTEXT_FIELDS.context);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const tool = toolUseOf(this);
	const checkNumber = (number: string) =>
		checkAllowedDestination(validate, number, options.allowedDestinations, tool, CONTEXT_REFUSED);
	if (this.getNodeParameter('callBy', itemIndex, 'id') !== 'clientNumber') {
		const id = readCallId(this, validate, itemIndex);
		const rules = checkToolRules(validate, options.allowedDestinations, tool, `call ${id}`);
		// Read first: the guard needs the call's customer number, the service wants the id back in the JSON
		// type it uses (the live service: a number), and a call that ended takes no context (the live
		// service would accept it and change nothing).
		const call = await getCall(this, id);
		if (rules.length > 0) checkNumber(call.to ?? '');
		refuseEnded(this, call, itemIndex);
		return await setCallContext(this, call, context, { fields: CONTEXT_FIELDS });
	}
	const clientNumber = validate.e164(
		this.getNodeParameter('clientNumber', itemIndex),
		clientNumberProperty.displayName,
	);
	checkNumber(clientNumber);
	const { call, search } = await liveCallOf(this, clientNumber, itemIndex);
	const updated = await setCallContext(this, call, context, { fields: CONTEXT_FIELDS });
	return { ...updated, live_call_search: search };
}
