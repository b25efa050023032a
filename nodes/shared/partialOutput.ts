import type { IDataObject } from 'n8n-workflow';

/**
 * What an operation got before some of its parts failed (e.g. the calls of an export whose transcripts
 * could be fetched). It travels with the error the operation throws, so that one part's failure never
 * discards the others: with "On Error → Continue" the node outputs the items and one error item per
 * failed part; otherwise the error alone stops the node.
 */
export interface PartialOutput {
	items: IDataObject[];
	/** One per failed part, naming it, e.g. `{ error: "…", call_id: "call_…" }`. */
	errors: IDataObject[];
}

// Kept beside the error rather than in it, so that n8n never copies thousands of items into an error.
const outputs = new WeakMap<object, PartialOutput>();

export function withPartialOutput<E extends Error>(error: E, output: PartialOutput): E {
	outputs.set(error, output);
	return error;
}

export function partialOutputOf(error: unknown): PartialOutput | undefined {
	return typeof error === 'object' && error !== null ? outputs.get(error) : undefined;
}
