import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { voiceAgentCredentials } from '../shared/credential';
import { callListFilters } from '../shared/parameters/callFilter';
import { optionsCollection } from '../shared/parameters/collections';
import { credentialTest, listSearch } from '../shared/methods';
import { startNewRun } from '../shared/runCache';
import {
	systemMessagesOption,
	transcriptFormatOption,
} from '../shared/parameters/transcriptFormat';
import { pollCallHistory } from './poll';
import {
	endStatusesOption,
	eventProperty,
	maxCallsPerPollOption,
	startFromOptions,
} from './settings';
import { fetchTestEvent } from './testEvent';

export class VoiceAgentCallHistoryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice Agent Call History Trigger',
		name: 'voiceAgentCallHistoryTrigger',
		icon: {
			light: 'file:../../icons/voiceAgent.svg',
			dark: 'file:../../icons/voiceAgent.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["event"] === "newCall" ? "New Call" : "Call Ended"}}',
		description:
			'Checks the call history on a schedule and starts the workflow for each call that ended (or each new call), for one agent or all, with a key to deduplicate: for exports and reports',
		defaults: { name: 'Voice Agent Call History Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: voiceAgentCredentials,
		properties: [
			{
				displayName:
					"Checks the call history at the Poll Times above, for exports and reports: each call once (again only if n8n stops right after a poll; dedupe_key is for Remove Duplicates). To act the moment a call ends, or to answer an agent's tool call, use the Voice Agent Trigger; both can watch one agent.",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			eventProperty,
			...callListFilters(),
			optionsCollection([
				...startFromOptions,
				maxCallsPerPollOption,
				endStatusesOption,
				transcriptFormatOption({ displayOptions: { show: { '/event': ['callEnded'] } } }),
				{ ...systemMessagesOption, displayOptions: { show: { '/event': ['callEnded'] } } },
			]),
		],
	};

	methods = { credentialTest, listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		// n8n keeps this context across polls: each poll reads the credential and the agent afresh.
		startNewRun(this);
		if (this.getMode() === 'manual') return await fetchTestEvent(this);
		return await pollCallHistory(this);
	}
}
