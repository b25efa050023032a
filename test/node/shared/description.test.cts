/**
 * What n8n's editor reads from the nodes as loaded from `dist/` by n8n's own loader: the canvas
 * subtitle (evaluated by n8n-workflow's expression engine, as the editor does), the codex the node
 * panel searches, the docs links, the connection test and the wording.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { INode, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { loadPackage, PACKAGE_NAME, type LoadedPackage } from '../../support/n8n.cts';

const packageJson = JSON.parse(
	readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'),
) as { n8n: { nodes: string[] } };
/** Every node the package declares, by its type name (n8n-nodes-voice-agent.voiceAgent, ...). */
const NODE_NAMES = packageJson.n8n.nodes.map((file) => path.basename(file, '.node.js'));
const nodeName = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

let pkg: LoadedPackage;
beforeAll(async () => {
	pkg = await loadPackage();
});

/** The canvas subtitle of a node with these parameters, as the editor computes it. */
function subtitleOf(type: string, parameters: INodeParameters): unknown {
	const nodeType = pkg.node(type);
	const node: INode = {
		id: 'n1',
		name: 'Node',
		type: `${PACKAGE_NAME}.${type}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: pkg.nodeTypes,
	});
	return workflow.expression.getSimpleParameterValue(
		node,
		nodeType.description.subtitle as string,
		'internal',
		{},
	);
}

/** Every text a user reads in a node's parameters: labels, descriptions, hints, notices, options. */
function textsOf(properties: INodeProperties[]): string[] {
	const texts: string[] = [];
	const visit = (entries: unknown[]) => {
		for (const entry of entries as Array<Record<string, unknown>>) {
			for (const key of ['displayName', 'name', 'description', 'hint', 'action', 'placeholder']) {
				if (typeof entry[key] === 'string' && key !== 'name') texts.push(entry[key] as string);
			}
			if (typeof entry.name === 'string' && entry.value !== undefined) texts.push(entry.name);
			for (const key of ['options', 'values']) {
				if (Array.isArray(entry[key])) visit(entry[key] as unknown[]);
			}
		}
	};
	visit(properties);
	return texts;
}

/** Every parameter, option and field of a node, nested ones included. */
function fieldsOf(properties: unknown[]): INodeProperties[] {
	const fields: INodeProperties[] = [];
	for (const entry of properties as Array<Record<string, unknown>>) {
		if (typeof entry !== 'object' || entry === null) continue;
		fields.push(entry as unknown as INodeProperties);
		for (const key of ['options', 'values'])
			if (Array.isArray(entry[key])) fields.push(...fieldsOf(entry[key] as unknown[]));
	}
	return fields;
}

/** Every description a builder reads in a tooltip or under an option, with the label it belongs to. */
function descriptionsOf(properties: INodeProperties[]): Array<{ label: string; text: string }> {
	return fieldsOf(properties)
		.filter((field) => typeof field.description === 'string')
		.map((field) => ({
			label: field.displayName ?? String((field as { name?: string }).name),
			text: field.description!,
		}));
}

/** The five options whose descriptions were walls of rules (issue 36), in words. */
const CALL_CREATE_OPTIONS = [
	'Calls at Once',
	'Max New Calls per Minute',
	'Slot Hold (Minutes)',
	'Max Calls per Hour',
	'Skip If Called Within (Minutes)',
];

describe('the Voice Agent node on the canvas', () => {
	test('its subtitle is the chosen action in words, for every operation', () => {
		const { properties } = pkg.node('voiceAgent').description;
		// One Operation list per resource and node version.
		const operations = properties.filter((property) => property.name === 'operation');
		expect(operations.length).toBeGreaterThanOrEqual(2);
		for (const operation of operations) {
			const [resource] = operation.displayOptions?.show?.resource as string[];
			for (const option of operation.options as Array<{ value: string; action: string }>) {
				expect(subtitleOf('voiceAgent', { resource, operation: option.value })).toBe(option.action);
			}
		}
		expect(subtitleOf('voiceAgent', { resource: 'call', operation: 'getMany' })).toBe(
			'Get many calls',
		);
	});

	test("Call → Create's pacing and guard options say what to pick in about 40 words", () => {
		const texts = descriptionsOf(pkg.node('voiceAgent').description.properties);
		for (const label of CALL_CREATE_OPTIONS) {
			const found = texts.filter((text) => text.label === label);
			expect(found).toHaveLength(1);
			expect(found[0].text.split(/\s+/).length).toBeLessThanOrEqual(45);
		}
	});

	test("the actions people read in the node panel and a new node's title are short, in n8n's style, and placing a call says it is a real phone call", () => {
		const description = pkg.node('voiceAgent').description;
		const actions = (resource: string) =>
			description.properties
				.filter(
					(property) =>
						property.name === 'operation' &&
						(property.displayOptions?.show?.resource as string[]).includes(resource),
				)
				.map((property) =>
					(property.options as Array<{ action: string }>).map((option) => option.action),
				);
		const agentActions = [
			'Create or update an agent',
			'Delete an agent',
			'Get an agent',
			'Get many agents',
		];
		const callActions = [
			'Create a real phone call',
			'Get a call',
			'Get many calls',
			'Set the context of a live call',
		];
		// One Operation list per node version (1, and 1.1 on): the same names.
		expect(actions('agent')).toEqual([agentActions, agentActions]);
		expect(actions('call')).toEqual([callActions, callActions]);
		// n8n titles a node added from the panel after its action.
		expect(NodeHelpers.makeNodeName({ resource: 'call', operation: 'create' }, description)).toBe(
			'Create a real phone call',
		);
		expect(subtitleOf('voiceAgent', { resource: 'call', operation: 'create' })).toBe(
			'Create a real phone call',
		);
	});

	test('the upsert is described in its own words', () => {
		const texts = textsOf(pkg.node('voiceAgent').description.properties);
		expect(texts).toContain(
			'Create a new agent with this name, or update the current one if it already exists (upsert)',
		);
		expect(texts.filter((text) => /\(Ms\)|create a new record/i.test(text))).toEqual([]);
	});

	test('Tools (JSON) starts empty and shows a worked example of a function tool', () => {
		const upsertFields = pkg
			.node('voiceAgent')
			.description.properties.find((property) => property.name === 'additionalFields');
		const tools = (upsertFields?.options as INodeProperties[]).find(
			(field) => field.name === 'tools',
		);
		expect(tools?.default).toBe('');
		const example = JSON.parse(tools?.placeholder ?? '');
		expect(example).toEqual([
			{
				type: 'function',
				function: expect.objectContaining({
					name: 'check_order_status',
					parameters: expect.objectContaining({ type: 'object' }),
				}),
			},
		]);
	});
});

describe('the Voice Agent Trigger on the canvas', () => {
	test("the node panel's one Voice Agent entry (node and trigger merged) reads right with either text", () => {
		const node = pkg.node('voiceAgent').description.description;
		const trigger = pkg.node('voiceAgentTrigger').description.description;
		for (const text of [node, trigger])
			expect(text).toMatch(/^Voice agents and their phone calls: /);
		expect(trigger).toMatch(/start a workflow when a call starts or ends/);
		// The panel shows the trigger's text while a workflow has no trigger yet: it says what the node does too.
		for (const text of [node, trigger]) expect(text).toMatch(/place real phone calls/);
	});

	test('its subtitle names the chosen events as the Events list does', () => {
		expect(subtitleOf('voiceAgentTrigger', { events: ['call_ended', 'tool_call'] })).toBe(
			'Call Ended, Tool Call',
		);
		expect(subtitleOf('voiceAgentTrigger', {})).toBe('Call Started, Call Ended, Tool Call');
	});
});

describe('the two triggers', () => {
	/** The notice a trigger shows first in its panel. */
	const noticeOf = (name: string) =>
		pkg.node(name).description.properties.find((property) => property.type === 'notice')
			?.displayName ?? '';

	test("each trigger's notice says what it is for and points to the other for the other job", () => {
		expect(noticeOf('voiceAgentTrigger')).toMatch(
			/the moment an agent's call starts or ends.*For a scheduled export or report of calls, use the Voice Agent Call History Trigger/,
		);
		expect(noticeOf('voiceAgentCallHistoryTrigger')).toMatch(
			/for exports and reports.*To act the moment a call ends, or to answer an agent's tool call, use the Voice Agent Trigger/,
		);
	});

	test('the Call History Trigger has no list labelled "Event", so the node panel names it in full', () => {
		// n8n's panel makes a trigger's "Event" (or "Events", "Trigger On") choices into actions, and then
		// shows the trigger's name without " Trigger".
		const { properties } = pkg.node('voiceAgentCallHistoryTrigger').description;
		const labels = properties.map((property) => property.displayName.toLowerCase());
		expect(labels.filter((label) => ['event', 'events', 'trigger on'].includes(label))).toEqual([]);
	});
});

/** Which texts may stay without help: n8n's own Resource and Operation, and the containers of options. */
const NEEDS_NO_HELP = new Set(['resource', 'operation', 'options', 'filters']);

/** Every field a builder fills and every choice of a list without help, by its path of labels. */
function withoutHelp(properties: unknown[], trail = ''): string[] {
	const missing: string[] = [];
	for (const field of properties as INodeProperties[]) {
		// Poll Times is n8n's own, added to every polling trigger.
		if (field.type === 'notice' || field.name === 'pollTimes') continue;
		const label = `${trail}${field.displayName}`;
		if (!field.description && !NEEDS_NO_HELP.has(field.name)) missing.push(label);
		for (const entry of (field.options ?? []) as unknown as Array<Record<string, unknown>>) {
			if (typeof entry.type === 'string') missing.push(...withoutHelp([entry], `${label} › `));
			else if (Array.isArray(entry.values))
				missing.push(...withoutHelp(entry.values, `${label} › ${String(entry.displayName)} › `));
			// The days of the week say what they are.
			else if (!entry.description && field.type === 'options' && field.name !== 'resource')
				missing.push(`${label} = ${String(entry.name)}`);
		}
	}
	return missing;
}

/** Words a builder need not read in the editor: node versions and how n8n runs processes (the docs say it). */
const DEVELOPER_SPEAK =
	/node version|version 1\.\d|\bn8n process|queue.mode|\bworkers?\b|\bmains?\b|libphonenumber|IANA zone/i;

describe.each(NODE_NAMES)('%s', (name) => {
	let description: INodeType['description'];
	beforeAll(() => {
		description = pkg.node(nodeName(name)).description;
	});

	test('is found by the node panel: searchable categories (never "AI") and the words users type', () => {
		const { codex } = description;
		expect(codex?.categories).toEqual(expect.arrayContaining(['Communication']));
		// n8n's editor leaves nodes of the category AI out of its search unless they are AI root nodes.
		expect(codex?.categories).not.toContain('AI');
		const words = [description.displayName, ...(codex?.alias ?? [])].map((word) =>
			word.toLowerCase(),
		);
		for (const term of ['voice', 'voice agent', 'call', 'transcript', 'phone']) {
			expect(words.some((word) => word.includes(term))).toBe(true);
		}
	});

	test('docs links carry no #fragment, which n8n would break by appending its query', () => {
		const { resources } = description.codex ?? {};
		const links = [
			...(resources?.primaryDocumentation ?? []),
			...(resources?.credentialDocumentation ?? []),
		];
		expect(links.length).toBeGreaterThan(0);
		for (const { url } of links) expect(url).not.toContain('#');
	});

	test("tests the credential with the package's own connection test", () => {
		const [credential] = description.credentials ?? [];
		expect(credential).toMatchObject({ name: 'voiceAgentApi', testedBy: 'voiceAgentApiTest' });
		const methods = pkg.node(nodeName(name)).methods;
		expect(typeof methods?.credentialTest?.voiceAgentApiTest).toBe('function');
	});

	test('every description a builder hovers is short: about 40 words, none over 60', () => {
		const counts = descriptionsOf(description.properties).map(({ label, text }) => ({
			label,
			words: text.split(/\s+/).filter(Boolean).length,
		}));
		expect(counts.length).toBeGreaterThan(0);
		expect(counts.filter(({ words }) => words > 60)).toEqual([]);
		const mean = counts.reduce((sum, { words }) => sum + words, 0) / counts.length;
		expect(mean).toBeLessThanOrEqual(40);
	});

	test('minutes show as typed: whole minutes as whole numbers, never "15.00"', () => {
		const minutes = fieldsOf(description.properties).filter((field) =>
			/\(Minutes\)$/.test(field.displayName),
		);
		for (const field of minutes) expect(field.typeOptions?.numberPrecision).toBeUndefined();
	});

	test('every field and every choice has help', () => {
		expect(withoutHelp(description.properties)).toEqual([]);
	});

	test('its help speaks to a builder: no node versions, n8n processes or data sources (the docs say those)', () => {
		const texts = textsOf(description.properties);
		expect(texts.filter((text) => DEVELOPER_SPEAK.test(text))).toEqual([]);
	});

	test('speaks of publishing, as n8n 2.x does, never of activating', () => {
		const texts = textsOf(description.properties);
		expect(texts.filter((text) => /\b(de)?activat|\bactive\b/i.test(text))).toEqual([]);
	});
});

describe('the credential', () => {
	test('links to docs without a fragment and leaves the connection test to the nodes', () => {
		const credential = pkg.credentialType('voiceAgentApi');
		expect(credential.documentationUrl).not.toContain('#');
		// n8n runs a declarative test in place of the nodes' one when the credential has it.
		expect(credential.test).toBeUndefined();
	});
});
