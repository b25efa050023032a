import type { IDataObject } from 'n8n-workflow';

/** An agent as the service returns it; fields beyond these are passed through untouched. */
export interface Agent extends IDataObject {
	id: string;
	name: string;
	phone_number?: string;
	webhook?: string;
}

/** A call in list shape (GET /calls). */
export interface CallSummary extends IDataObject {
	id: string;
	agent_id: string;
	client_number: string;
	context: string;
	status: string;
	created_at: string;
}

interface TranscriptEntry extends IDataObject {
	speaker: string;
	text: string;
}

/** A call in full (GET /call, POST /call). */
export interface Call extends IDataObject {
	id: string;
	agent_id: string;
	from: string;
	to: string;
	status: string;
	transcript?: TranscriptEntry[];
}
