import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * From node version 1.4 an item whose To was written in another spelling than its canonical E.164 form
 * (phoneNumber.ts) carries it as given in `to_given`, beside the call's `to`: a CRM can match its own row.
 * Older versions output what they always did (a new field could break a mapping); the canonical form itself
 * is dialled, claimed and compared at every version.
 */
export const GIVEN_NUMBER_VERSION = 1.4;

export function withGivenNumber(
	context: IExecuteFunctions,
	itemIndex: number,
	canonical: string,
	output: IDataObject,
): IDataObject {
	if (context.getNode().typeVersion < GIVEN_NUMBER_VERSION) return output;
	const given = context.getNodeParameter('to', itemIndex);
	if (typeof given !== 'string' || given.trim() === canonical) return output;
	return { ...output, to_given: given };
}
