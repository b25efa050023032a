import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

/** One operation of the node: its parameters and how it runs for one input item. */
export interface VoiceAgentOperation {
	description: INodeProperties[];
	/** Returns the output items (as JSON) for the input item at `itemIndex`. */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/**
	 * For an operation that schedules its items itself (Call → Create runs several at once): the output
	 * of all input items, in input order, each paired with its input. When present, `execute` is not
	 * called by the router.
	 */
	executeAll?(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
}
