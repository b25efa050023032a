/**
 * Input checks of the Voice Agent node, run in n8n's engine: a bad value stops the item before any
 * request, and the error names the field and the item. Values come from expressions, as in a
 * workflow where the previous node supplies them (n8n itself blocks an empty required field typed in).
 */
import type { INodeParameters } from 'n8n-workflow';

import { createAgent, placeCall, wire, wireLines } from '../../support/api.cts';
import { API_KEY } from '../../support/fixtures.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ apiKeys: [API_KEY], callDurationMs: 60_000 });

const V = '={{ $json.v }}';
const createCall = (overrides: INodeParameters): INodeParameters => ({
	resource: 'call',
	operation: 'create',
	from: rl('+14155550100', 'phoneNumber'),
	to: '+14155550123',
	...overrides,
});
const upsert = (
	additionalFields: INodeParameters,
	overrides: INodeParameters = {},
): INodeParameters => ({
	resource: 'agent',
	operation: 'upsert',
	name: 'Checked',
	areaCode: '415',
	additionalFields,
	...overrides,
});

type Case = [label: string, parameters: INodeParameters, value: unknown, message: string];

const CASES: Case[] = [
	[
		'To without its country code',
		createCall({ to: V }),
		'4155550123',
		'To must start with + and the country code: "+1 415 555 0123" for the US or Canada',
	],
	[
		'To with a leading zero',
		createCall({ to: V }),
		'+0123456789',
		'To must be a phone number in E.164 form',
	],
	['To empty', createCall({ to: V }), '', 'To must be a phone number in E.164 form'],
	[
		'From phone number not E.164',
		createCall({ from: rl(V, 'phoneNumber') }),
		'555-0100',
		'From (Agent) must start with + and the country code',
	],
	['From agent ID empty', createCall({ from: rl(V, 'id') }), '', 'From (Agent) must not be empty'],
	[
		'Voicemail Number not E.164',
		upsert({ voicemailNumber: V }),
		'12345',
		'Voicemail Number must be a phone number in E.164 form',
	],
	[
		"an action's forwarding number not E.164",
		upsert({ actions: { action: [{ name: 'transfer', instructions: '', forwardingNumber: V }] } }),
		'+1 415',
		'Actions 1: Forwarding Number must be a phone number in E.164 form',
	],
	[
		'Client Number filter not E.164',
		{ resource: 'call', operation: 'getMany', returnAll: true, filters: { clientNumber: V } },
		'client-7',
		'Client Number must be a phone number in E.164 form',
	],
	[
		'Voice Optimization 5',
		upsert({ voiceOptimization: V }),
		5,
		'Voice Optimization must be a whole number from 0 to 4',
	],
	[
		'Voice Optimization 2.5',
		upsert({ voiceOptimization: V }),
		2.5,
		'Voice Optimization must be a whole number from 0 to 4',
	],
	[
		'negative Endpointing',
		upsert({ endpointing: V }),
		-10,
		'Endpointing (Milliseconds) must be a whole number 0 or more',
	],
	[
		'negative Smart Endpointing Threshold',
		upsert({ smartEndpointingThreshold: V }),
		-1,
		'Smart Endpointing Threshold must be a whole number 0 or more',
	],
	[
		'negative Rewrite Threshold of a compliance check',
		upsert({
			complianceChecks: {
				check: [{ name: 'c', model: 'gpt-4o', checkInstructions: '', rewriteThreshold: V }],
			},
		}),
		-2,
		'Compliance Checks 1: Rewrite Threshold must be a whole number 0 or more',
	],
	[
		'Tools not JSON',
		upsert({ tools: V }),
		'[{"type": "function",',
		'Tools (JSON) is not valid JSON',
	],
	[
		'Tools a JSON object, not an array',
		upsert({ tools: V }),
		'{"type": "function"}',
		'Tools (JSON) must be a JSON array of objects',
	],
	[
		'Tools an array of numbers',
		upsert({ tools: V }),
		'[1, 2]',
		'Tools (JSON) must be a JSON array of objects',
	],
	[
		'Tools an array with a nested array',
		upsert({ tools: V }),
		[{ type: 'function' }, ['x']],
		'Tools (JSON) must be a JSON array of objects',
	],
	[
		'Tools an empty list: removing every tool takes the explicit option',
		upsert({ tools: V }),
		'[]',
		'Tools (JSON) is an empty list, which would remove all the agent\'s tools: to do that, add the option "Remove All Tools"; to keep them, leave Tools (JSON) empty',
	],
	[
		'Tools given while Remove All Tools is on',
		upsert({ tools: V, removeAllTools: true }),
		'[{"type": "function", "function": {"name": "f"}}]',
		'Tools (JSON) must be empty when "Remove All Tools" is on: remove one of the two',
	],
	[
		'LLM Model unknown',
		upsert({ llmModel: V }),
		'gpt-2',
		'LLM Model must be one of gpt-4o, service-voice',
	],
	[
		'Webhook URL not http(s)',
		upsert({ webhook: V }),
		'ftp://example.com/hook',
		'Webhook URL must be an http:// or https:// URL',
	],
	['Name empty', upsert({}, { name: V }), '  ', 'Name must not be empty'],
	[
		'an action without a name',
		upsert({ actions: { action: [{ name: V, forwardingNumber: '+14155550100' }] } }),
		'',
		'Actions 1: Name must not be empty',
	],
	['Area Code of 2 digits', upsert({}, { areaCode: V }), '41', 'Area Code must be 3 digits'],
	['Area Code of letters', upsert({}, { areaCode: V }), 'abc', 'Area Code must be 3 digits'],
	['Area Code of 4 digits', upsert({}, { areaCode: V }), 4155, 'Area Code must be 3 digits'],
	[
		'Call ID empty (Get)',
		{ resource: 'call', operation: 'get', callId: V },
		'',
		'Call ID must not be empty',
	],
	[
		'Call ID empty (Set Context)',
		{ resource: 'call', operation: 'setContext', callId: V, context: 'x' },
		' ',
		'Call ID must not be empty',
	],
	[
		'Context empty (Set Context)',
		{ resource: 'call', operation: 'setContext', callId: 'call_1', context: V },
		'',
		'Context must not be empty',
	],
	[
		'Agent ID empty (Get)',
		{ resource: 'agent', operation: 'get', agent: rl(V) },
		'',
		'Agent must not be empty',
	],
	[
		'Agent ID empty (Delete)',
		{ resource: 'agent', operation: 'delete', agent: rl(V, 'list') },
		'',
		'Agent must not be empty',
	],
	[
		'Limit 0 (Call: Get Many)',
		{ resource: 'call', operation: 'getMany', returnAll: false, limit: V },
		0,
		'Limit must be a whole number 1 or more',
	],
	[
		'Limit 0 (Agent: Get Many)',
		{ resource: 'agent', operation: 'getMany', returnAll: false, limit: V },
		0,
		'Limit must be a whole number 1 or more',
	],
	[
		'Limit -5',
		{ resource: 'call', operation: 'getMany', returnAll: false, limit: V },
		-5,
		'Limit must be a whole number 1 or more',
	],
	[
		'Max Requests in Parallel 0',
		{
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			options: { includeTranscripts: true, transcriptConcurrency: V },
		},
		0,
		'Max Requests in Parallel must be a whole number from 1 to 100',
	],
	[
		'Max Requests in Parallel 101',
		{
			resource: 'call',
			operation: 'getMany',
			returnAll: true,
			options: { includeTranscripts: true, transcriptConcurrency: V },
		},
		101,
		'Max Requests in Parallel must be a whole number from 1 to 100',
	],
	// Bounds (docs/service.md, "Limits the nodes enforce"): oversized values never reach the service.
	[
		'a 2 MiB Context (Set Context)',
		{ resource: 'call', operation: 'setContext', callId: 'call_1', context: V },
		'x'.repeat(2 * 1024 * 1024),
		'Context must be at most 100,000 characters (got 2,097,152)',
	],
	[
		'a 2 MiB Context (Create)',
		createCall({ context: V }),
		'x'.repeat(2 * 1024 * 1024),
		'Context must be at most 100,000 characters (got 2,097,152)',
	],
	[
		'a 2 MiB System Prompt',
		upsert({ systemPrompt: V }),
		'x'.repeat(2 * 1024 * 1024),
		'System Prompt must be at most 100,000 characters (got 2,097,152)',
	],
	[
		'a 2 MiB Name',
		upsert({}, { name: V }),
		'x'.repeat(2 * 1024 * 1024),
		'Name must be at most 256 characters (got 2,097,152)',
	],
	[
		'a 100,000-character Call ID',
		{ resource: 'call', operation: 'get', callId: V },
		'c'.repeat(100_000),
		'Call ID must be at most 256 characters (got 100,000)',
	],
	[
		'a Call ID with a space',
		{ resource: 'call', operation: 'get', callId: V },
		'call 1',
		'Call ID must be an ID without spaces',
	],
	[
		'a 300-character Agent ID',
		{ resource: 'agent', operation: 'get', agent: rl(V) },
		'a'.repeat(300),
		'Agent must be at most 256 characters (got 300)',
	],
];

/** Twelve function tools of 99,000 characters each: every text within its bound, the body above 1 MiB. */
const HUGE_TOOLS = Array.from({ length: 12 }, (_, n) => ({
	type: 'function',
	function: { name: `f${n}`, description: 'd'.repeat(99_000), parameters: {} },
}));

describe('the whole request body', () => {
	test('a body above 1 MiB stops before sending and names its largest field', async () => {
		const run = await runWith(sandbox, upsert({ tools: V }), { input: [{ v: HUGE_TOOLS }] });

		expect(run.items).toEqual([]);
		expect(run.error?.message).toMatch(
			/^The request would be 1,188,\d{3} bytes, more than the 1,048,576 the service accepts; its largest field is Tools \(JSON\) \[item 0\]$/,
		);
		expect(await wire(sandbox)).toEqual([]);
	});
});

describe('each invalid value stops the node before any request, naming the field and the item', () => {
	test.each(CASES)('%s', async (_label, parameters, value, message) => {
		const run = await runWith(sandbox, parameters, { input: [{ v: value }] });

		expect(run.items).toEqual([]);
		expect(run.error?.message.startsWith(message)).toBe(true);
		expect(run.error?.message).toMatch(/\[item 0\]$/);
		expect(run.error?.context?.itemIndex).toBe(0);
		expect(await wire(sandbox)).toEqual([]);
	});

	test.each<[string, INodeParameters, string]>([
		[
			'Voice Optimization 5',
			upsert({ voiceOptimization: 5, endpointing: 100 }),
			'Voice Optimization must be a whole number from 0 to 4 (got 5) [item 0]',
		],
		[
			'Endpointing -1',
			upsert({ endpointing: -1 }),
			'Endpointing (Milliseconds) must be a whole number 0 or more (got -1) [item 0]',
		],
		[
			'Limit 0',
			{ resource: 'call', operation: 'getMany', returnAll: false, limit: 0 },
			'Limit must be a whole number 1 or more (got 0) [item 0]',
		],
	])(
		'a literal value typed into the field is checked the same way: %s',
		async (_label, parameters, message) => {
			const run = await runWith(sandbox, parameters);

			expect(run.error?.message).toBe(message);
			expect(await wire(sandbox)).toEqual([]);
		},
	);

	test('the item named is the one that failed; the items before it were sent', async () => {
		const run = await runWith(
			sandbox,
			{
				resource: 'agent',
				operation: 'upsert',
				name: '=Agent {{ $json.n }}',
				areaCode: '={{ $json.area }}',
			},
			{
				input: [
					{ n: 0, area: '415' },
					{ n: 1, area: '212' },
					{ n: 2, area: '9' },
					{ n: 3, area: '312' },
				],
			},
		);

		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe('Area Code must be 3 digits, like 415 (got "9") [item 2]');
		expect(run.error?.context?.itemIndex).toBe(2);
		expect(
			(await wire(sandbox))
				.filter((request) => request.method === 'POST')
				.map((request) => (request.body as { area_code: string }).area_code),
		).toEqual(['415', '212']);
	});
});

describe('Continue On Fail', () => {
	test('3 items with an invalid middle one: 3 output items, the middle one {error}, each paired with its input', async () => {
		const agent = await createAgent(sandbox, { name: 'Continuer' });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{
				resource: 'call',
				operation: 'create',
				from: rl(agent.id),
				to: '={{ $json.to }}',
				context: '={{ $json.context }}',
			},
			{
				continueOnFail: true,
				input: [
					{ to: '+14155550101', context: 'first' },
					{ to: 'not a number', context: 'second' },
					{ to: '+14155550103', context: 'third' },
				],
			},
		);

		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(3);
		expect(run.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(run.items[0].json).toMatchObject({
			to: '+14155550101',
			context: 'first',
			status: 'in_progress',
		});
		expect(run.items[1].json).toEqual({
			error:
				'To must be a phone number in E.164 form, like +14155550123 (got "not a number") [item 1]',
		});
		expect(run.items[2].json).toMatchObject({
			to: '+14155550103',
			context: 'third',
			status: 'in_progress',
		});
		const posts = (await wire(sandbox)).filter((request) => request.method === 'POST');
		expect(posts.map((request) => (request.body as { to: string }).to)).toEqual([
			'+14155550101',
			'+14155550103',
		]);
	});

	test("an API error in the middle item (404) becomes that item's {error}; the others go on", async () => {
		const agent = await createAgent(sandbox);
		const first = await placeCall(sandbox, agent, { context: 'one' });
		const last = await placeCall(sandbox, agent, { context: 'three' });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'get', callId: '={{ $json.id }}' },
			{ continueOnFail: true, input: [{ id: first.id }, { id: 'call_missing' }, { id: last.id }] },
		);

		expect(run.items).toEqual([
			{ json: first, pairedItem: { item: 0 } },
			{ json: { error: 'Call "call_missing" was not found' }, pairedItem: { item: 1 } },
			{ json: last, pairedItem: { item: 2 } },
		]);
		expect(await wireLines(sandbox)).toEqual(['GET /call 200', 'GET /call 404', 'GET /call 200']);
	});

	test('a list operation with Continue On Fail: items of the good inputs, {error} for the bad one', async () => {
		await sandbox.seed({ agents: 1, calls: 5 });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'getMany', returnAll: false, limit: '={{ $json.limit }}' },
			{ continueOnFail: true, input: [{ limit: 2 }, { limit: 0 }, { limit: 1 }] },
		);

		expect(run.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(run.items[2].json).toEqual({
			error: 'Limit must be a whole number 1 or more (got 0) [item 1]',
		});
		expect((await wire(sandbox)).map((request) => request.query.limit)).toEqual(['2', '1']);
	});

	test('without it, the run fails naming the item, and no item is sent: Create checks every item before the first call', async () => {
		const agent = await createAgent(sandbox, { name: 'Stopper' });
		await sandbox.clearRequests();

		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'create', from: rl(agent.id), to: '={{ $json.to }}' },
			{ input: [{ to: '+14155550101' }, { to: '12' }, { to: '+14155550103' }] },
		);

		expect(run.items).toEqual([]);
		expect(run.error?.message).toBe(
			'To must be a phone number in E.164 form, like +14155550123 (got "12") [item 1]',
		);
		expect(run.error?.context?.itemIndex).toBe(1);
		expect(run.run.data.resultData.error?.message).toBe(run.error?.message);
		expect(await wire(sandbox)).toEqual([]);
	});

	test('without it, an API error names the item too', async () => {
		const agent = await createAgent(sandbox);
		const call = await placeCall(sandbox, agent);

		const run = await runWith(
			sandbox,
			{ resource: 'call', operation: 'get', callId: '={{ $json.id }}' },
			{ input: [{ id: call.id }, { id: 'call_missing' }] },
		);

		expect(run.error?.message).toBe('Call "call_missing" was not found');
		expect(run.error?.context?.itemIndex).toBe(1);
	});
});

test('a valid item after the checks is sent unchanged (the checks do not alter good values)', async () => {
	const run = await runWith(
		sandbox,
		upsert(
			{ voiceOptimization: 0, endpointing: 0, smartEndpointingThreshold: 0 },
			{ areaCode: '212' },
		),
	);

	expect(jsonOf(run)[0]).toMatchObject({
		voice_optimization: 0,
		endpointing: 0,
		smart_endpointing_threshold: 0,
	});
	const [post] = (await wire(sandbox)).filter((request) => request.method === 'POST');
	expect(post.body).toStrictEqual({
		name: 'Checked',
		area_code: '212',
		voice_optimization: 0,
		endpointing: 0,
		smart_endpointing_threshold: 0,
	});
});
