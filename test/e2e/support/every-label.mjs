// Nodes of this package whose parameters, together, show every label a builder can see: each operation
// with every option added (and the fields that options reveal), each trigger with every option. The
// browser suite opens each and checks that the editor cuts no label short.

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
const AGENT = { __rl: true, mode: 'id', value: 'agt_every_label' };
const NUMBER = '+14155550123';

/** [node type, type version, node name, parameters] */
const NODES = [
	[
		'voiceAgent',
		1.4,
		'Create a call, every option',
		{
			resource: 'call',
			operation: 'create',
			from: AGENT,
			to: NUMBER,
			context: 'Renewal',
			skipCalledWithinMinutes: 15,
			options: {
				allowedDestinations: '+1',
				maxCallsPerRun: 1,
				maxCallsPerHour: 5,
				userSpeaksFirst: false,
				waitForEnd: true,
				maxWaitMinutes: 30,
				onMaxWait: 'output',
				firstCheckSeconds: 3,
				callsAtOnce: 1,
				maxCallsPerMinute: 0,
				slotHoldMinutes: 30,
				callingHours: {
					hours: {
						days: WEEKDAYS,
						from: '09:00',
						until: '20:00',
						timeZone: 'number',
						unknownNumber: 'refuse',
					},
				},
				callAgain: {
					settings: {
						attempt: '={{ $json.attempt || 1 }}',
						attempts: 3,
						minutesBetween: 60,
						previousCallId: '={{ $json.call_id }}',
						successStatuses: 'completed',
					},
				},
			},
		},
	],
	[
		'voiceAgent',
		1.4,
		'Create a call, a time zone given',
		{
			resource: 'call',
			operation: 'create',
			from: AGENT,
			to: NUMBER,
			options: {
				callingHours: {
					hours: {
						days: WEEKDAYS,
						from: '09:00',
						until: '20:00',
						timeZone: 'given',
						zone: 'America/New_York',
					},
				},
			},
		},
	],
	[
		'voiceAgent',
		1.4,
		'Get a call, every option',
		{
			resource: 'call',
			operation: 'get',
			callId: 'call_1',
			options: {
				waitForEnd: true,
				maxWaitMinutes: 30,
				onMaxWait: 'output',
				firstCheckSeconds: 3,
				transcriptFormat: 'text',
				includeSystemMessages: false,
			},
		},
	],
	[
		'voiceAgent',
		1.4,
		'Get many calls, every option',
		{
			resource: 'call',
			operation: 'getMany',
			returnAll: false,
			limit: 50,
			agent: AGENT,
			filters: { clientNumber: NUMBER },
			options: {
				includeTranscripts: true,
				transcriptConcurrency: 50,
				transcriptFormat: 'text',
				includeSystemMessages: false,
			},
		},
	],
	[
		'voiceAgent',
		1.4,
		'Set the context of a live call by number',
		{
			resource: 'call',
			operation: 'setContext',
			callBy: 'clientNumber',
			clientNumber: NUMBER,
			agent: AGENT,
			context: 'Paid',
			options: { allowedDestinations: '+1' },
		},
	],
	[
		'voiceAgent',
		1.4,
		'Set the context of a call by ID',
		{ resource: 'call', operation: 'setContext', callBy: 'id', callId: 'call_1', context: 'Paid' },
	],
	[
		'voiceAgent',
		1.4,
		'Create or update an agent, every field',
		{
			resource: 'agent',
			operation: 'upsert',
			name: 'Front Desk',
			areaCode: '415',
			additionalFields: {
				actions: {
					action: [{ name: 'transfer', instructions: 'When asked', forwardingNumber: NUMBER }],
				},
				complianceChecks: {
					check: [
						{
							name: 'polite',
							model: 'gpt-4o',
							checkInstructions: 'Be polite',
							rewriteThreshold: 5,
						},
					],
				},
				endpointing: 100,
				fillerWords: false,
				fillerWordsWhitelist: 'um',
				initialMessage: 'Hello',
				language: 'en',
				llmModel: 'gpt-4o',
				removeAllTools: false,
				smartEndpointingThreshold: 1,
				systemPrompt: 'You book appointments.',
				tools: '',
				voiceId: 'voice_1',
				voiceOptimization: 1,
				voicemailNumber: NUMBER,
				webhook: 'https://example.com/events',
			},
		},
	],
	['voiceAgent', 1.4, 'Get an agent', { resource: 'agent', operation: 'get', agent: AGENT }],
	[
		'voiceAgent',
		1.4,
		'Get many agents, every option',
		{
			resource: 'agent',
			operation: 'getMany',
			returnAll: false,
			limit: 50,
			filters: { nameContains: 'desk' },
		},
	],
	['voiceAgent', 1.4, 'Delete an agent', { resource: 'agent', operation: 'delete', agent: AGENT }],
	[
		'voiceAgentTrigger',
		1,
		'Voice Agent Trigger, every option',
		{
			agent: AGENT,
			events: ['call_ended'],
			responseMode: 'onReceived',
			options: {
				includeCallDetails: true,
				transcriptFormat: 'text',
				replaceExistingWebhook: false,
				tokenRotation: 0,
			},
		},
	],
	[
		'voiceAgentCallHistoryTrigger',
		1,
		'Call History Trigger, every option',
		{
			event: 'callEnded',
			agent: AGENT,
			filters: { clientNumber: NUMBER },
			options: {
				startFrom: 'lastDays',
				startFromDays: 7,
				maxCallsPerPoll: 1000,
				endStatuses: 'busy',
				transcriptFormat: 'text',
				includeSystemMessages: false,
			},
		},
	],
];

/** The workflow holding those nodes, side by side, unconnected (no credential: labels need none). */
export function everyLabelWorkflow(packageName) {
	return {
		name: 'Browser: every label',
		nodes: NODES.map(([type, typeVersion, name, parameters], index) => ({
			name,
			type: `${packageName}.${type}`,
			typeVersion,
			position: [index * 240, 0],
			parameters,
			...(type === 'voiceAgentTrigger'
				? { webhookId: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d' }
				: {}),
		})),
		connections: {},
	};
}

/** The nodes' names, in the order they stand. */
export const EVERY_LABEL_NODES = NODES.map(([, , name]) => name);

/**
 * Every label a node's description can show a builder: parameters, options and their fields, except
 * notices (no label) and the tool variant's own Description.
 */
export function labelsOf(description) {
	const labels = new Set();
	const visit = (entries) => {
		for (const entry of entries ?? []) {
			if (entry.type === 'notice' || entry.displayOptions?.show?.['@tool']) continue;
			if (typeof entry.type === 'string') labels.add(entry.displayName);
			for (const option of entry.options ?? []) {
				if (typeof option.type === 'string') visit([option]);
				else if (Array.isArray(option.values)) visit(option.values);
			}
		}
	};
	visit(description.properties);
	return labels;
}
