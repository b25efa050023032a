/**
 * As an AI Agent's tool (the node type `voiceAgentTool`, filled by the model through $fromAI), the node
 * fails closed: Call → Create and Call → Set Context reach only numbers in Allowed Destinations and
 * nobody without them, and Max Calls per Run caps the calls of one execution. Run in n8n-core's real
 * engine against the sandbox; n8n's tool variant runs the node's own execute with the tool's type.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { allCalls, createAgent, placeCall, wire, wireLines } from '../../support/api.cts';
import { PACKAGE_NAME, rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

const TOOL = `${PACKAGE_NAME}.voiceAgentTool`;

function run(
	parameters: INodeParameters,
	input: IDataObject[],
	more: Partial<RunNodeOptions> = {},
) {
	return runNode({
		parameters,
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: 1.2,
		input,
		...more,
	});
}

/** Call → Create as a model uses it: To from $fromAI, the rest set in the workflow. */
function createByModel(options: INodeParameters = {}): INodeParameters {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: "={{ $fromAI('To', 'The number to call', 'string') }}",
		options,
	};
}

/**
 * The same for several uses of the tool in one execution: $fromAI reads a later run's values from the
 * tool-call record only a real AI Agent writes, so here To comes from the run's input item.
 */
function createInRuns(options: INodeParameters): INodeParameters {
	return { ...createByModel(options), to: '={{ $json.To }}' };
}

const apiRequests = async () => await wire(sandbox);

describe('Call → Create as an AI tool', () => {
	test('without Allowed Destinations it calls nobody, and the error says why', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.clearRequests();

		const result = await run(createByModel(), [{ To: '+14155550123' }], { type: TOOL });

		expect(result.error?.message).toBe(
			'Allowed Destinations are empty: as an AI tool this node contacts only numbers listed there, so +14155550123 was not contacted [item 0]',
		);
		expect(await apiRequests()).toEqual([]);
	});

	test('Allowed Destinations from an expression that resolves to nothing: the same', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.clearRequests();

		const result = await run(
			createByModel({ allowedDestinations: '={{ $json.allowed ?? "" }}' }),
			[{ To: '+14155550123' }],
			{ type: TOOL },
		);

		expect(result.error?.message).toMatch(/^Allowed Destinations are empty: /);
		expect(await apiRequests()).toEqual([]);
	});

	test('Allowed Destinations the model fills in ($fromAI) are refused', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.clearRequests();

		const result = await run(
			createByModel({ allowedDestinations: "={{ $fromAI('Allowed', '', 'string') }}" }),
			[{ To: '+14155550123', Allowed: '+1' }],
			{ type: TOOL },
		);

		expect(result.error?.message).toBe(
			'Allowed Destinations must not be filled by the AI model ($fromAI): +14155550123 was not contacted [item 0]',
		);
		expect(await apiRequests()).toEqual([]);
	});

	test('with Allowed Destinations it calls an allowed number once per execution by default', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		// The model uses the tool twice in one execution: the second call is over the default limit of 1.
		const result = await run(
			createInRuns({ allowedDestinations: '+1415' }),
			[{ To: '+14155550101' }],
			{ type: TOOL, laterInputs: [[{ To: '+14155550102' }]] },
		);

		const [first, second] = result.run.data.resultData.runData['Voice Agent'];
		expect(first.data?.main[0]?.[0].json).toMatchObject({ to: '+14155550101' });
		expect(second.error?.message).toBe(
			'Max Calls per Run (1) is reached: this node already placed 1 call in this execution, so the call to +14155550102 was not placed [item 0]',
		);
		expect((await allCalls(sandbox)).map((call) => call.client_number)).toEqual(['+14155550101']);
	});

	test('asked twice for the same number in one execution, it outputs the first call, marked as skipped', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const result = await run(
			createInRuns({ allowedDestinations: '+1415', maxCallsPerRun: 5 }),
			[{ To: '+14155550101' }],
			{ type: TOOL, laterInputs: [[{ To: '+14155550101' }]] },
		);

		const [first, second] = result.run.data.resultData.runData['Voice Agent'].map(
			(task) => task.data?.main[0]?.[0].json,
		);
		expect(first).not.toHaveProperty('skipped');
		expect(second).toMatchObject({
			id: first?.id,
			skipped: true,
			skipReason: `This tool already called +14155550101 in this execution (call ${first?.id as string}), so it was not called again`,
		});
		expect(await allCalls(sandbox)).toHaveLength(1);
	});

	test('Max Calls per Run set higher allows that many', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const result = await run(
			createInRuns({ allowedDestinations: '+1415', maxCallsPerRun: 2 }),
			[{ To: '+14155550101' }],
			{ type: TOOL, laterInputs: [[{ To: '+14155550102' }], [{ To: '+14155550103' }]] },
		);

		expect(result.error?.message).toMatch(/^Max Calls per Run \(2\) is reached: /);
		expect(await allCalls(sandbox)).toHaveLength(2);
	});
});

describe('Max Calls per Run in a workflow', () => {
	test('no limit unless set; set, the items over it fail before anything is sent', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		const numbers = ['+14155550101', '+14155550102', '+14155550103'];

		const result = await run(
			{
				resource: 'call',
				operation: 'create',
				from: rl('Front Desk', 'name'),
				to: '={{ $json.to }}',
				options: { maxCallsPerRun: 2 },
			},
			numbers.map((to) => ({ to })),
			{ continueOnFail: true },
		);

		const [, , third] = jsonOf(result);
		expect(third).toEqual({
			error:
				'Max Calls per Run (2) is reached: this node already placed 2 calls in this execution, so the call to +14155550103 was not placed [item 2]',
		});
		expect(await allCalls(sandbox)).toHaveLength(2);
	});

	test('a call the service refused gives its slot back', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.faults({ match: 'POST /call', error_rate: 1, status: 400, times: 1 });

		const result = await run(
			{
				resource: 'call',
				operation: 'create',
				from: rl('Front Desk', 'name'),
				to: '={{ $json.to }}',
				options: { maxCallsPerRun: 1 },
			},
			[{ to: '+14155550101' }, { to: '+14155550102' }],
			{ continueOnFail: true },
		);

		const [refused, placed] = jsonOf(result);
		expect(refused.error).toMatch(/400/);
		expect(placed).toMatchObject({ to: '+14155550102', status: 'in_progress' });
	});
});

describe('Call → Set Context and Allowed Destinations', () => {
	function setContext(parameters: IDataObject): INodeParameters {
		return {
			resource: 'call',
			operation: 'setContext',
			context: 'Offer the discount',
			...parameters,
		};
	}

	test('as an AI tool, without them, no call gets a context', async () => {
		const agent = await createAgent(sandbox);
		await placeCall(sandbox, agent, { to: '+14155550123' });
		await sandbox.clearRequests();

		const result = await run(
			setContext({
				callBy: 'clientNumber',
				clientNumber: "={{ $fromAI('Number', '', 'string') }}",
			}),
			[{ Number: '+14155550123' }],
			{ type: TOOL },
		);

		expect(result.error?.message).toBe(
			'Allowed Destinations are empty: as an AI tool this node contacts only numbers listed there, so +14155550123 was not contacted [item 0]',
		);
		expect(await apiRequests()).toEqual([]);
	});

	test('as an AI tool, without them, a call by ID gets no context and is not even read', async () => {
		const call = await placeCall(sandbox, await createAgent(sandbox), { to: '+14155550123' });
		await sandbox.clearRequests();

		const result = await run(setContext({ callBy: 'id', callId: call.id }), [{}], { type: TOOL });

		expect(result.error?.message).toBe(
			`Allowed Destinations are empty: as an AI tool this node contacts only numbers listed there, so call ${call.id as string} was not contacted [item 0]`,
		);
		expect(await apiRequests()).toEqual([]);
	});

	test('a call by ID whose number is outside them gets no context; one inside does', async () => {
		const agent = await createAgent(sandbox);
		const outside = await placeCall(sandbox, agent, { to: '+12125550123' });
		const inside = await placeCall(sandbox, agent, { to: '+14155550123' });
		await sandbox.clearRequests();

		const result = await run(
			setContext({
				callBy: 'id',
				callId: '={{ $json.Call }}',
				options: { allowedDestinations: '+1415' },
			}),
			[{ Call: outside.id }],
			{ type: TOOL, laterInputs: [[{ Call: inside.id }]], continueOnFail: true },
		);

		const [refused, accepted] = result.run.data.resultData.runData['Voice Agent'];
		expect(refused.data?.main[0]?.[0].json).toEqual({
			error:
				"The call's number +12125550123 is not among the Allowed Destinations (+1415): no context was sent [item 0]",
		});
		expect(accepted.data?.main[0]?.[0].json).toMatchObject({
			id: inside.id,
			context: 'Offer the discount',
		});
		expect(await wireLines(sandbox)).toEqual([
			'GET /call 200',
			'GET /call 200',
			'POST /call/context 200',
		]);
	});

	test('in a workflow, a live call of a client number outside them fails before anything is sent', async () => {
		await sandbox.clearRequests();

		const result = await run(
			setContext({
				callBy: 'clientNumber',
				clientNumber: '+12125550123',
				options: { allowedDestinations: '+1415' },
			}),
			[{}],
		);

		expect(result.error?.message).toBe(
			"The call's number +12125550123 is not among the Allowed Destinations (+1415): no context was sent [item 0]",
		);
		expect(await apiRequests()).toEqual([]);
	});
});
