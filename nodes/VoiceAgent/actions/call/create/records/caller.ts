/**
 * Who places Call → Create's call, as the ledger's records keep it (callLedger.ts): whether an earlier
 * record is the item's call depends on the agent and the number it calls from, never on how From's
 * picker named them.
 */
import type { CallRecord, Caller } from '../model';

/** The caller as a record keeps it: the agent's ID ('' for a phone number) and the number it calls from. */
export function recordCaller(caller: Caller): Pick<CallRecord, 'agent' | 'from'> {
	return { agent: caller.agentId ?? '', from: caller.from };
}

/**
 * Whether the record's call was placed by the item's caller. The picker's mode never decides it: an agent
 * picked from the list, given by ID, by name or by its phone number is the same caller. Records saved
 * before `from` was kept name the picker: by ID or from the list they name the agent, by phone number
 * the number; by name only the same name is known to be the same agent.
 */
export function sameCaller(record: CallRecord, caller: Caller): boolean {
	if (record.from !== undefined)
		return record.from === caller.from || (record.agent !== '' && record.agent === caller.agentId);
	if (record.agent === '' || record.agent === caller.picker) return true;
	const colon = record.agent.indexOf(':');
	const mode = record.agent.slice(0, colon);
	const value = record.agent.slice(colon + 1);
	if (mode === 'phoneNumber') return value === caller.from;
	return (mode === 'list' || mode === 'id') && value === caller.agentId;
}
