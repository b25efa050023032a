import { oncePerRun } from '../../../../../shared/runCache';
import type { Call } from '../../../../../shared/types';
import type { CallLedger, CallRecord } from './callLedger';
import type { SkippedCall } from '../guards/skipRecentlyCalled';

/** How a claimed call came out: the call placed or found (none when nothing was, or nobody knows). */
export interface Landing {
	call?: Call | SkippedCall;
	record: CallRecord;
	itemIndex: number;
}

/**
 * A call being placed right now in this process, for whoever asks for the same call meanwhile: a
 * concurrent use of the tool, a later item of the run with the same number. They wait for it instead
 * of dialling, and take its outcome.
 */
export interface Flight {
	settled: Promise<Landing>;
	land(call: Call | SkippedCall | undefined): void;
}

/**
 * The flights of an execution, beside its ledger (the same object for every run and use of the node in
 * it). In memory only: a flight lives as long as the request it waits for, never beyond the process.
 */
function flightsOf(ledger: CallLedger): Map<string, Flight> {
	return oncePerRun(ledger, 'flights', () => new Map<string, Flight>());
}

export function flightOf(ledger: CallLedger, key: string): Flight | undefined {
	return flightsOf(ledger).get(key);
}

/**
 * Starts the flight of a claimed record under its keys: the item's slot (until it lands: then the
 * record says what happened) and, with Skip Numbers on, the run's number (kept after landing, so every
 * later item with that number takes the outcome, unless nothing was sent: then the next item may dial).
 */
export function startFlight(
	ledger: CallLedger,
	[slot, numberKey]: [string, string | undefined],
	itemIndex: number,
	record: CallRecord,
): Flight {
	const flights = flightsOf(ledger);
	let settle: (landing: Landing) => void = () => {};
	const flight: Flight = {
		settled: new Promise<Landing>((resolve) => (settle = resolve)),
		land(call) {
			if (flights.get(slot) === flight) flights.delete(slot);
			if (numberKey && record.state === 'notSent' && flights.get(numberKey) === flight)
				flights.delete(numberKey);
			settle({ call, record, itemIndex });
		},
	};
	flights.set(slot, flight);
	if (numberKey) flights.set(numberKey, flight);
	return flight;
}
