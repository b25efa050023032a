import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCall } from '../../../shared/api/calls';
import { callIdField, readCallId } from '../../../shared/parameters/callId';
import { optionsCollection } from '../../../shared/parameters/collections';
import {
	readTranscriptFormat,
	readSystemMessages,
	systemMessagesOption,
	transcriptFormatOption,
	withTranscriptFormat,
} from '../../../shared/parameters/transcriptFormat';
import { InputValidator } from '../../../shared/validation';
import { waitForEnd, waitForEndOptions, waitSettings } from './waitForEnd';

const properties: INodeProperties[] = [
	callIdField('ID of the call to retrieve, with its transcript once it has ended'),
	optionsCollection([...waitForEndOptions, transcriptFormatOption(), systemMessagesOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['call'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const validate = new InputValidator(this.getNode(), itemIndex);
	const id = readCallId(this, validate, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const format = readTranscriptFormat(this.getNode(), options.transcriptFormat, itemIndex);
	const wait = waitSettings(this, itemIndex, options);
	const call = await getCall(this, id);
	const latest = wait ? await waitForEnd(this, call, wait, itemIndex) : call;
	return withTranscriptFormat(latest, format, { systemMessages: readSystemMessages(options) });
}
