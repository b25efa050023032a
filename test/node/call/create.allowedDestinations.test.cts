/** Allowed Destinations on Call → Create in a workflow, run in n8n's engine against the sandbox. */
import { allCalls, createAgent, wire } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

function createCall(to: string, allowedDestinations: string) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to,
		options: { allowedDestinations },
	};
}

describe('Allowed Destinations on Call → Create', () => {
	test('a number outside them fails before anything is sent, naming the number and the rule', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, createCall('+12125550123', '+1415, +442071234567'));

		expect(run.error?.message).toBe(
			'To +12125550123 is not among the Allowed Destinations (+1415, +442071234567): no call was placed [item 0]',
		);
		expect(await wire(sandbox)).toEqual([]);
	});

	test('a number that starts with a prefix, or is a number listed, is called', async () => {
		const agent = await createAgent(sandbox, { name: 'Front Desk' });

		const run = await runWith(
			sandbox,
			createCall('={{ $json.to }}', '+1415 555, +44 20 7123 4567'),
			{
				input: [{ to: '+14155550123' }, { to: '+442071234567' }],
			},
		);

		expect(jsonOf(run).map((call) => [call.from, call.to])).toEqual([
			[agent.phone_number, '+14155550123'],
			[agent.phone_number, '+442071234567'],
		]);
	});

	test('a list from an expression; On Error → Continue fails only the item outside it', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const run = await runWith(sandbox, createCall('={{ $json.to }}', '={{ $json.allowed }}'), {
			input: [
				{ to: '+14155550101', allowed: ['+14155550101'] },
				{ to: '+14155550199', allowed: ['+14155550101'] },
			],
			continueOnFail: true,
		});

		const [placed, refused] = jsonOf(run);
		expect(placed).toMatchObject({ to: '+14155550101', status: 'in_progress' });
		expect(refused).toEqual({
			error:
				'To +14155550199 is not among the Allowed Destinations (+14155550101): no call was placed [item 1]',
		});
		expect((await allCalls(sandbox)).map((call) => call.client_number)).toEqual(['+14155550101']);
	});

	test('an entry that is not an E.164 number or prefix is an input error', async () => {
		const run = await runWith(sandbox, createCall('+14155550123', '+1415, 212'));

		expect(run.error?.message).toBe(
			'Allowed Destinations must hold E.164 numbers or prefixes, like +1415 or +442071234567 (got "212") [item 0]',
		);
		expect(await wire(sandbox)).toEqual([]);
	});

	test('empty: any number may be called', async () => {
		await createAgent(sandbox, { name: 'Front Desk' });

		const run = await runWith(sandbox, createCall('+61255501234', ''));

		expect(jsonOf(run)[0].to).toBe('+61255501234');
	});
});
