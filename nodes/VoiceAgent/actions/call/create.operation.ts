import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { type NewCall } from '../../../shared/api/calls';
import { resolveAgent, type AgentLocatorValue } from '../../../shared/parameters/agent';
import { optionsCollection } from '../../../shared/parameters/collections';
import { labelsOf } from '../../../shared/fields';
import { InputValidator } from '../../../shared/validation';
import {
	allowedDestinationsOption,
	checkAllowedDestination,
	toolUseOf,
} from './allowedDestinations';
import {
	attemptGiven,
	callAgainOption,
	failedOutcome,
	readCallAgain,
	type ItemAttempt,
} from './create/attempts/callAgain';
import { batchOptions, runCallBatch } from './create/batch/callBatch';
import { agentPhoneNumber, checkFrom, fromProperty } from './callFrom';
import { withGivenNumber } from './givenNumber';
import { callingHoursOption, readCallingHours } from './create/callingHours/option';
import type { ItemHours } from './create/callingHours/window';
import { OUTCOMES_VERSION } from './create/model';
import { maxCallsPerHour, maxCallsPerHourOption } from './create/guards/callsPerHour';
import { hourBudgetOf } from './create/guards/agentHour';
import { callerNumber, gateKey } from './create/gate/numberGate';
import { accountOf } from '../../../shared/transport/request';
import { placeAndWait, type PreparedCall } from './create/attempts/placeAndWait';
import {
	ledgerOf,
	maxCallsPerRun,
	maxCallsPerRunOption,
	runIndexOf,
	slotOf,
} from './create/records/callLedger';
import { slotHoldMs } from './create/batch/slotHold';
import {
	skipOffNotice,
	skipRecentlyCalledProperty,
	skipWindowMinutes,
} from './create/guards/skipRecentlyCalled';
import { waitForEndOptions, waitSettings, type WaitSettings } from './waitForEnd';

const properties: INodeProperties[] = [
	fromProperty,
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description:
			'Phone number to call, in E.164 form. A national prefix written after the country code, like +44 (0)20…, is removed where the country drops it.',
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
		maxCallsPerHourOption,
		{
			displayName: 'User Speaks First',
			name: 'userSpeaksFirst',
			type: 'boolean',
			default: false,
			description: 'Whether the agent waits for the person called to speak first',
		},
		...waitForEndOptions,
		...batchOptions,
		callingHoursOption,
		callAgainOption,
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

/** What the item asks for, checked before anything is sent: no request is made here. */
interface CallRequest {
	from: AgentLocatorValue;
	to: string;
	context: string;
	options: IDataObject;
	wait: WaitSettings | undefined;
	/** How long the call may keep its Calls at Once slot past the wait (slotHold.ts). */
	slotHoldMs: number | undefined;
	/** Max Calls per Run; 0: no limit. */
	maxCalls: number;
	/** Max Calls per Hour; 0: no limit. */
	maxPerHour: number;
	/** Skip If Called Within (Minutes); 0: off. */
	windowMinutes: number;
	hours: ItemHours | undefined;
	attempt: ItemAttempt;
}

function readCallRequest(context: IExecuteFunctions, itemIndex: number): CallRequest {
	const validate = new InputValidator(context.getNode(), itemIndex);
	const from = checkFrom(
		validate,
		context.getNodeParameter('from', itemIndex) as AgentLocatorValue | undefined,
		CALL_FIELDS.from,
	);
	const to = validate.e164(context.getNodeParameter('to', itemIndex), CALL_FIELDS.to);
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	checkAllowedDestination(validate, to, options.allowedDestinations, toolUseOf(context), {
		field: CALL_FIELDS.to,
		outcome: 'no call was placed',
		where: 'Call → Create → Options',
	});
	const maxCalls = maxCallsPerRun(context, validate, options);
	const maxPerHour = maxCallsPerHour(context, validate, options);
	const windowMinutes = skipWindowMinutes(context, validate, itemIndex);
	const callContext = validate.text(
		context.getNodeParameter('context', itemIndex, ''),
		CALL_FIELDS.context,
	);
	const wait = waitSettings(context, itemIndex, options);
	const holdMs = slotHoldMs(context.getNode().typeVersion, validate, options, wait);
	const hours = readCallingHours(context, validate, options, to);
	const attempt = readCallAgain(context, validate, options, wait !== undefined);
	return {
		...{ from, to, context: callContext, options, wait, slotHoldMs: holdMs, maxCalls, maxPerHour },
		...{ windowMinutes, hours, attempt },
	};
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
	const account = await accountOf(context);
	const budget = { context, account, agentId, fromNumber, itemIndex, max: request.maxPerHour };
	return {
		// The number called from, whichever way From names the agent: one agent is one caller in the gate.
		gateKey: gateKey(account, callerNumber(fromNumber), request.to),
		account,
		hourBudget: await hourBudgetOf(budget),
		body,
		caller: {
			...(agentId ? { agentId } : {}),
			from: fromNumber,
			picker: `${request.from.mode}:${String(request.from.value)}`,
		},
		filter: agentId ? { clientNumber: request.to, agentId } : { clientNumber: request.to },
		itemIndex,
		maxCalls: request.maxCalls,
		windowMinutes: request.windowMinutes,
		wait: request.wait,
		hours: request.hours,
		attempt: request.attempt.attempt,
		previousCallId: request.attempt.previousCallId,
		attemptSettings: request.attempt,
	};
}

/** All items at once: Calls at Once and the pace, each item through `placeAndWait` (callBatch.ts). */
export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const ledger = ledgerOf(this);
	return await runCallBatch(
		this,
		{
			check: readCallRequest,
			prepare: prepareCall,
			run: async (context, item, seams) =>
				withGivenNumber(
					context,
					item.itemIndex,
					item.body.to,
					await placeAndWait(context, item, seams, CALL_FIELDS),
				),
			liveCallOf: (context, itemIndex, request) => {
				const record = ledger.records[slotOf(context, itemIndex, request.to)];
				return record?.state === 'placed' && record.run === runIndexOf(context)
					? record.callId
					: undefined;
			},
			slotHoldMs: (request) => request.slotHoldMs,
			byOutcome: this.getNode().typeVersion >= OUTCOMES_VERSION,
			failureFields: (error, request, itemIndex) => {
				const attempt = request?.attempt.attempt ?? attemptGiven(this, itemIndex);
				const record = request && ledger.records[slotOf(this, itemIndex, request.to)];
				const ofThisAttempt = (record?.attempt ?? 1) === attempt ? record : undefined;
				return failedOutcome(error, attempt, ofThisAttempt);
			},
		},
		ledger,
	);
}
