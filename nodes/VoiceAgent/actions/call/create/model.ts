import type { IDataObject } from 'n8n-workflow';

import type { Call } from '../../../../shared/types';

/* What every layer of the engine shares: types and constants only, nothing here decides. */

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
	/** The agent's ID ('' for a phone number); saved without `from`: the picker's `mode:value`, or '' (0.1.0). */
	agent: string;
	from?: string;
	to: string;
	state: CallState;
	callId?: string;
	/** The execution that claimed it: another one is a *Retry execution* of it. */
	executionId: string;
	run?: number;
	/** Why it was skipped: the call it found instead is output with this. */
	why?: string;
	/** The call found is this very attempt's own, placed by an execution whose outcome never reached the lead. */
	own?: boolean;
	attempt?: number;
	/** Shares another record's possible call (its outcome unknown): counted once, on that record. */
	sameCallAs?: string;
}

/**
 * The execution's memory, in n8n's node context: kept across Retry On Fail's tries and a loop's passes, and
 * saved with the execution, so *Retry execution* finds it too.
 */
export interface CallLedger extends IDataObject {
	records: Record<string, CallRecord>;
	/** n8n's clock (ms) at each POST /call of the last minute: Max New Calls per Minute. */
	sentAt: number[];
}

/** Who places an item's call, whichever way From names the agent (no agentId for a phone number). */
export interface Caller {
	agentId?: string;
	from: string;
	/** From's picker as `mode:value`: only to read records saved before `from` was kept. */
	picker: string;
}

/** A call found instead of placing one. `ownAttempt`: this very attempt's call, its end the outcome. */
export type SkippedCall = Call & { skipped: true; skipReason: string; ownAttempt?: true };
