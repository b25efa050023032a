import type { IExecuteFunctions, IHookFunctions, IPollFunctions } from 'n8n-workflow';

/** Where parameters are read: per input item in a node run, once in a trigger's hooks and polls. */
export type ParameterContext = IExecuteFunctions | IHookFunctions | IPollFunctions;

/** A parameter's value: of the input item when one is given, else of the trigger. */
export function nodeParameter(
	context: ParameterContext,
	name: string,
	itemIndex: number | undefined,
	fallback: unknown,
): unknown {
	if (itemIndex === undefined) {
		return (context as IHookFunctions | IPollFunctions).getNodeParameter(name, fallback as object);
	}
	return (context as IExecuteFunctions).getNodeParameter(name, itemIndex, fallback as object);
}
