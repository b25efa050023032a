import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { callPages, getCall } from '../../../../../shared/api/calls';
import { asNodeError, dataProblemError, isNotFound } from '../../../../../shared/errors';
import { latestInstantOf } from '../../../../../shared/serviceTime';
import type { AttemptReport } from '../../../../../shared/transport/types';
import type { InputValidator } from '../../../../../shared/validation';
import { runsAsTool } from '../../allowedDestinations';
import type { CallRecord } from '../model';

/** An AI tool's default: a looping model or a prompt injection phones at most this many numbers an hour. */
const TOOL_DEFAULT_MAX_CALLS_PER_HOUR = 5;
const FIELD = 'Max Calls per Hour';
const HOUR_MS = 3_600_000;
/** A listed call is remembered this long after it landed: a read started before it is taken within it, or refused. */
const SHOWN_KEPT_MS = 600_000;
/** A call not listed after this is read by ID: a 404 no longer counts, one held counts until listed. */
const LIST_LAG_MS = 60_000;

export const maxCallsPerHourOption: INodeProperties = {
	displayName: FIELD,
	name: 'maxCallsPerHour',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: TOOL_DEFAULT_MAX_CALLS_PER_HOUR,
	description: `At most this many calls by the agent in any hour, whoever placed them; a call over it fails before dialling. Keep a budget when the node is an AI tool. 0: no limit. Without this option: ${TOOL_DEFAULT_MAX_CALLS_PER_HOUR} as an AI tool, no limit otherwise.`,
};

export function maxCallsPerHour(
	context: IExecuteFunctions,
	validate: InputValidator,
	options: IDataObject,
): number {
	if (options.maxCallsPerHour === undefined || options.maxCallsPerHour === '')
		return runsAsTool(context) ? TOOL_DEFAULT_MAX_CALLS_PER_HOUR : 0;
	return validate.integer(options.maxCallsPerHour, FIELD, 0);
}

/** The agent's calls of the last hour, as one read of the call list saw them. */
export interface HourRead {
	/** n8n's clock when the read started. */
	startedAt: number;
	/** The service's Date header and the calls' `created_at` by ID, in ms (the service's clock). */
	serviceNowMs: number;
	createdMs: Map<string, number>;
}

/** The budget of an item's agent: what it allows, and whose calls it counts. */
export interface HourBudget {
	max: number;
	agentId: string;
	/** Account and agent: all executions of the process count together under it. */
	key: string;
}

function unreadable(context: IExecuteFunctions, budget: HourBudget, to: string, why: string) {
	return dataProblemError(context.getNode(), {
		message: `${FIELD} (${budget.max}) could not be checked: the agent's call list could not be read (${why}), so the call to ${to} was not placed`,
		description: `${FIELD} counts the agent's calls of the last hour in the service's call list. The node never dials without it.`,
	});
}

/** Reads the agent's calls back to an hour ago; anything that cannot be read fails closed. */
export async function readHour(
	context: IExecuteFunctions,
	budget: HourBudget,
	to: string,
): Promise<HourRead> {
	const startedAt = Date.now();
	let serviceDate: string | undefined;
	const observer = { onAttempt: (attempt: AttemptReport) => (serviceDate ??= attempt.serviceDate) };
	const createdMs = new Map<string, number>();
	try {
		let serviceNowMs = NaN;
		for await (const calls of callPages(context, { agentId: budget.agentId }, { observer })) {
			serviceNowMs = Date.parse(serviceDate ?? '');
			if (Number.isNaN(serviceNowMs)) throw new Error('the answer has no Date header');
			let older = false;
			for (const call of calls) {
				if (typeof call?.id !== 'string') throw new Error('a call without an ID');
				// A time that cannot be read counts as within the hour: the budget errs on the side of not phoning.
				const created = latestInstantOf(call.created_at);
				if (!Number.isNaN(created) && created <= serviceNowMs - HOUR_MS) older = true;
				else createdMs.set(call.id, Number.isNaN(created) ? serviceNowMs : created);
			}
			if (older) break;
		}
		if (Number.isNaN(serviceNowMs)) serviceNowMs = Date.parse(serviceDate ?? '');
		if (Number.isNaN(serviceNowMs)) throw new Error('the answer has no Date header');
		await forgetCallsNotHeld(context, budget.key, startedAt, createdMs);
		if (Date.now() - startedAt >= SHOWN_KEPT_MS) throw new Error('reading it took too long');
		return { startedAt, serviceNowMs, createdMs };
	} catch (error) {
		throw unreadable(context, budget, to, (error as Error).message);
	}
}

/** A call this process counts against the budget until the call list shows it. */
interface HourEntry {
	callId?: string;
	/** Undefined while the call is being placed. */
	landedAt?: number;
	/** A 404 for its ID: not counted. */
	notHeld?: true;
}

/**
 * Per account and agent, the calls the list may not show yet, and the newest read of any execution (every
 * check counts with it, so no entry is dropped too early). Module scope: every execution counts them.
 */
type AgentHour = { read?: HourRead; entries: Set<HourEntry> };
const hours = new Map<string, AgentHour>();

async function forgetCallsNotHeld(
	context: IExecuteFunctions,
	key: string,
	startedAt: number,
	listed: Map<string, number>,
): Promise<void> {
	for (const entry of hours.get(key)?.entries ?? []) {
		const { callId, landedAt } = entry;
		if (callId === undefined || landedAt === undefined || listed.has(callId)) continue;
		if (startedAt - landedAt < LIST_LAG_MS) continue;
		try {
			await getCall(context, callId);
		} catch (error) {
			if (!isNotFound(error)) throw asNodeError(context.getNode(), error);
			entry.notHeld = true;
		}
	}
}

/** The calls the budget counts: ms times of the hour's calls, newest first (calls not listed yet: now). */
function counted(hour: AgentHour, now: number): number[] {
	const read = hour.read as HourRead;
	const times = [...read.createdMs.values()];
	for (const entry of hour.entries) {
		const shown = entry.callId !== undefined && read.createdMs.has(entry.callId);
		const age = entry.landedAt === undefined ? 0 : now - entry.landedAt;
		const seen = shown && (entry.landedAt as number) <= read.startedAt && age >= SHOWN_KEPT_MS;
		if (age >= HOUR_MS || seen || entry.notHeld) hour.entries.delete(entry);
		else if (!shown) times.push(read.serviceNowMs);
	}
	return times.sort((a, b) => b - a);
}

/** `land` once POST /call has landed (or nothing was sent). */
export interface HourCall {
	land(record: CallRecord): void;
}

const NOT_COUNTED: HourCall = { land: () => {} };

/** Checks and takes a call in one synchronous step: two executions never both take the last call. */
export function takeHourCall(
	budget: HourBudget | undefined,
	read: HourRead | undefined,
	validate: InputValidator,
	to: string,
): HourCall {
	if (!budget || !read) return NOT_COUNTED;
	const hour = hours.get(budget.key) ?? { entries: new Set<HourEntry>() };
	if (!hour.read || hour.read.startedAt < read.startedAt) hour.read = read;
	const times = counted(hour, Date.now());
	if (times.length >= budget.max) {
		if (hour.entries.size === 0) hours.delete(budget.key);
		const nextAt = new Date(times[budget.max - 1] + HOUR_MS).toISOString();
		validate.fail(
			FIELD,
			`(${budget.max}) is reached: the agent has ${times.length} call${times.length === 1 ? '' : 's'} in the last hour, so the call to ${to} was not placed; the next call is possible at ${nextAt}`,
			`${FIELD} (Call → Create → Options) counts the agent's calls in the service's call list, whoever placed them.`,
		);
	}
	const entry: HourEntry = {};
	hour.entries.add(entry);
	hours.set(budget.key, hour);
	return {
		land(record) {
			if (['notSent', 'skipped'].includes(record.state)) hour.entries.delete(entry);
			else Object.assign(entry, { callId: record.callId, landedAt: Date.now() });
			if (hour.entries.size === 0 && hours.get(budget.key) === hour) hours.delete(budget.key);
		},
	};
}
