import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCall } from '../../../shared/api';
import { callIdField, optionsCollection } from '../../../shared/descriptions';
import {
	readTranscriptFormat,
	transcriptFormatOption,
	withTranscriptFormat,
} from '../../../shared/transcript';
import { InputValidator } from '../../../shared/validation';

const properties: INodeProperties[] = [
	callIdField('ID of the call to retrieve, with its transcript once it has ended'),
	optionsCollection([transcriptFormatOption()]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const id = validate.id(this.getNodeParameter('callId', itemIndex), 'Call ID');
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const format = readTranscriptFormat(this.getNode(), options.transcriptFormat, itemIndex);
	return withTranscriptFormat(await getCall(this, id), format);
}
