import type { IDataObject } from 'n8n-workflow';

/*
 * The package's model of what the service holds, as the decoders (`api/decode/`) make it from either wire
 * format: the documented one, or the live service's own. Nothing else reads the service's raw JSON.
 */

/** An agent; fields beyond these are passed through untouched. Its id as text, whatever JSON type it came as. */
export interface Agent extends IDataObject {
	id: string;
	name: string;
	phone_number?: string;
	webhook?: string;
}

/** One turn of a conversation: `speaker` is `agent` or `customer` (another role is kept by its name). */
export interface TranscriptEntry extends IDataObject {
	speaker: string;
	text: string;
}

/**
 * A call, in the shape its answer had (GET /call and POST /call: in full; GET /calls: the list shape, or in
 * full where the service lists whole rows). `status` is always there: the service's, or, for a service that
 * writes none (the live one), derived from its `in_progress` and `ended_at` (`callStatus.ts`). For such
 * calls `to` and `duration` are derived too, from `client_number` and `time_seconds`.
 */
export interface Call extends IDataObject {
	id: string;
	agent_id: string;
	status: string;
	from?: string;
	to?: string;
	client_number?: string;
	context?: string;
	created_at?: string;
	/** When it ended; null (or absent) while it has not. The live service's zero time is read as null. */
	ended_at?: string | null;
	duration?: number | null;
	transcript?: TranscriptEntry[] | null;
}

/** A call as a list shows it; every reader of a list item reads these (and `Call`'s) fields only. */
export type CallSummary = Call;
