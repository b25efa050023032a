import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

/** An operation that runs once per input item. */
interface PerItemOperation {
	description: INodeProperties[];
	/** Returns the output items (as JSON) for the input item at `itemIndex`. */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

/**
 * An operation that schedules its items itself (Call → Create runs several at once): the output of all
 * input items, in input order, each paired with its input.
 */
interface AllItemsOperation {
	description: INodeProperties[];
	executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
}

/** One operation of the node: its parameters and how it runs. */
export type VoiceAgentOperation = PerItemOperation | AllItemsOperation;
