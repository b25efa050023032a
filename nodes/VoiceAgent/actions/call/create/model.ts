import type { IDataObject } from 'n8n-workflow';

import type { Call } from '../../../../shared/types';

/*
 * What every layer of the engine shares, below all of them: the ledger's records and their states, who places
 * a call, a call found instead of placing one, and the node versions that change what an item outputs. Types
 * and constants only: nothing here decides.
 */

/** Node version 1.3 brought Calling Hours, Call Again and the outcome fields. */
export const OUTCOMES_VERSION = 1.3;
export const fromVersion13 = { show: { '@version': [{ _cnd: { gte: OUTCOMES_VERSION } }] } };

/** Where a call this node set out to place stands; its steps forward are records/callLedger.ts's `NEXT`. */
export type CallState =
	| 'claimed'
	| 'sent'
	| 'placed'
	| 'unnamed'
	| 'unknown'
	| 'notSent'
	| 'skipped'
	| 'ended';

/** One intended call, in the execution's memory. About 100 bytes in the saved execution. */
export interface CallRecord extends IDataObject {
	/**
	 * The agent that places it, by ID whichever way From named it ('' when From gave a phone number). In
	 * records saved without `from`: the picker's `mode:value`, or '' (version 0.1.0: any agent).
	 */
	agent: string;
	/** The number the call is placed from, whichever way From named it. */
	from?: string;
	to: string;
	state: CallState;
	callId?: string;
	/** The execution that claimed it: another one is a *Retry execution* of it. */
	executionId: string;
	/** The node run (loop pass) whose batch placed it; tools: none. */
	run?: number;
	/** Why it was skipped: the call it found instead is output with this. */
	why?: string;
	/** The call found is this very attempt's own, placed by an execution whose outcome never reached the lead. */
	own?: boolean;
	/** The lead's attempt (Call Again) from 2 on: each attempt is a call of its own. */
	attempt?: number;
	/**
	 * The slot of the record whose possible call this one is too (a later item with the same number,
	 * after the first one's outcome was unknown): one possible call counts once, on that record.
	 */
	sameCallAs?: string;
}

/**
 * The execution's memory of Call → Create, kept in n8n's execution context for the node
 * (`getContext('node')`): n8n keeps it across the tries of *Retry On Fail* and the passes of a loop,
 * and saves it with the execution, so *Retry execution* finds it too. Every guard reads it: re-runs
 * (the item's record), Max Calls per Run (records that may have called), the per-number guard (records
 * in flight), Calls at Once (records placed and not seen ended) and the pace (`sentAt`).
 */
export interface CallLedger extends IDataObject {
	records: Record<string, CallRecord>;
	/** n8n's clock (ms) at each POST /call of the last minute: Max New Calls per Minute. */
	sentAt: number[];
}

/** Who places an item's call, whichever way From names the agent. */
export interface Caller {
	/** The agent's ID; undefined when From gives a phone number. */
	agentId?: string;
	/** The number the call is placed from. */
	from: string;
	/** From's picker as `mode:value`: only to read records saved before `from` was kept. */
	picker: string;
}

/**
 * A call found instead of placing one. `ownAttempt`: it is this very attempt's call (placed by an
 * earlier execution of the same attempt), so its end is the attempt's outcome; never output.
 */
export type SkippedCall = Call & { skipped: true; skipReason: string; ownAttempt?: true };
