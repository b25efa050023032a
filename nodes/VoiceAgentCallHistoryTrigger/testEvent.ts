import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { callPages, getCall } from '../shared/api/calls';
import { hasEnded } from '../shared/callStatus';
import { dataProblemError } from '../shared/errors';
import type { RequestOptions } from '../shared/transport/types';
import { withTranscriptFormat } from '../shared/parameters/transcriptFormat';
import type { CallSummary } from '../shared/types';
import { wanted, withDedupeKey } from './ended';
import { readSettings } from './settings';

/** How far "Fetch Test Event" looks for an ended call among calls in progress. */
const MAX_TEST_PAGES = 10;

/** The user waits in the editor: fail fast and say why, as an activation does. */
const EDITOR_WAIT: RequestOptions = { purpose: 'activation' };

/**
 * "Fetch Test Event": the latest call that ended (with a status End Statuses lists), in full (or the
 * latest call, for New Call), as the trigger would output it. The saved state is neither read nor
 * changed.
 */
export async function fetchTestEvent(context: IPollFunctions): Promise<INodeExecutionData[][]> {
	const settings = await readSettings(context);
	const isEvent = (call: CallSummary) =>
		settings.event === 'newCall' || (hasEnded(call) && wanted(settings, call));
	let pages = 0;
	let looked = 0;
	let found: CallSummary | undefined;
	for await (const page of callPages(context, settings.filter, EDITOR_WAIT)) {
		looked += page.length;
		found = page.find(isEvent);
		if (found || ++pages >= MAX_TEST_PAGES) break;
	}
	if (!found) {
		const { agentId, clientNumber } = settings.filter;
		const matching = agentId || clientNumber ? ' matching the filters' : '';
		const what =
			looked === 0
				? `There is no call${matching} yet`
				: `No call${matching} has ended among the latest ${looked.toLocaleString('en-US')}`;
		throw dataProblemError(context.getNode(), { message: `${what}: place a call and fetch again` });
	}
	const item =
		settings.event === 'newCall'
			? withDedupeKey(found, 'new_call')
			: withDedupeKey(
					withTranscriptFormat(
						await getCall(context, found.id, EDITOR_WAIT),
						settings.transcriptFormat,
						{
							systemMessages: settings.systemMessages,
						},
					),
					'call_ended',
				);
	return [context.helpers.returnJsonArray([item])];
}
