import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** One operation of the node: its parameters and how it runs for one input item. */
export interface VoiceAgentOperation {
	description: INodeProperties[];
	/** Returns the output items (as JSON) for the input item at `itemIndex`. */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}
