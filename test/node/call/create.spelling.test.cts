/**
 * One spelling per person (issue 34, item 2): "+44 (0)20 7946 0123" and "+44 20 7946 0123" are one person
 * to every check of Call → Create (the run, the process's claim, the skip look-up, Allowed Destinations)
 * and to Get Many's filter. Run in n8n-core's real engine against the sandbox; its request log counts the
 * calls placed.
 */
import type { INodeParameters } from 'n8n-workflow';

import { allCalls, createAgent, endCall, placeCall, dialsByNumber } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runNode, type RunNodeOptions } from '../../support/node.cts';
import { useSandbox } from '../../support/sandbox.cts';

const sandbox = useSandbox({ callDurationMs: 60_000 });

function create(options: INodeParameters = {}, more: INodeParameters = {}): INodeParameters {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		options,
		...more,
	};
}

function execution(id: string, more: Partial<RunNodeOptions>) {
	return runNode({
		parameters: create(),
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: 1.3,
		executionId: id,
		...more,
	});
}

/** How many times each number was phoned (POST /call answered 2xx). */
const dialled = () => dialsByNumber(sandbox);

const SPELLINGS = [{ to: '+44 (0)20 7946 0123' }, { to: '+44 20 7946 0123' }];

beforeEach(async () => {
	await createAgent(sandbox, { name: 'Front Desk' });
	await sandbox.clearRequests();
});

describe('two spellings of one person', () => {
	test.each([1.2, 1.3, 1.4])(
		'in one run (node %s): phoned once, the other item outputs that call as skipped',
		async (typeVersion) => {
			const run = await execution('exec-1', { typeVersion, input: SPELLINGS });

			expect(await dialled()).toEqual({ '+442079460123': 1 });
			const [placed, skipped] = jsonOf(run);
			expect(placed).toMatchObject({ to: '+442079460123' });
			expect(skipped).toMatchObject({ id: placed.id, to: '+442079460123', skipped: true });
		},
	);

	test.each([0, 15])(
		'in two executions at once, POST /call taking 800 ms, skip window %i (node 1.3): phoned once',
		async (window) => {
			await sandbox.faults({ match: 'POST /call', latency_ms: 800 });
			const parameters = create({}, { skipCalledWithinMinutes: window });

			const runs = await Promise.all(
				SPELLINGS.map((lead, n) => execution(`exec-${n}`, { parameters, input: [lead] })),
			);

			expect(await dialled()).toEqual({ '+442079460123': 1 });
			const outcomes = runs.map((run) => jsonOf(run)[0].outcome).sort();
			expect(outcomes).toEqual(['placed', 'skipped']);
		},
	);

	test('a redelivery 10 s later in the other spelling, default skip window: skipped, naming the first call', async () => {
		setClock(new Date().toISOString());
		try {
			const first = await execution('exec-1', { input: [{ to: '+442079411001' }] });
			await endCall(sandbox, jsonOf(first)[0].id);
			jumpClock(10_000);
			const again = await execution('exec-2', { input: [{ to: '+44 (0)20 7941 1001' }] });

			expect(await dialled()).toEqual({ '+442079411001': 1 });
			const [skipped] = jsonOf(again);
			expect(skipped).toMatchObject({
				id: jsonOf(first)[0].id,
				to: '+442079411001',
				skipped: true,
				outcome: 'skipped',
			});
			expect(skipped.skipReason).toMatch(/ to \+442079411001 began 0 min (?:9|1\d) s ago/);
		} finally {
			restoreClock();
		}
	});
});

/**
 * Issue 41: spellings libphonenumber reads through a national prefix for parsing or its transform rule were
 * two numbers (each row was phoned twice, and its first spelling was sent to the service as written).
 */
const ISSUE_41 = [
	['Lithuania', '+370 8 612 34567', '+370 612 34567', '+37061234567'],
	['Belarus', '+375 8029 123 45 67', '+375 29 123 45 67', '+375291234567'],
	['Argentina', '+54 11 15 2345-6789', '+54 9 11 2345-6789', '+5491123456789'],
	['Gabon', '+241 0 11 23 45 67', '+241 11 23 45 67', '+24111234567'],
];

describe("one person by libphonenumber's parsing rules (issue 41)", () => {
	test.each(ISSUE_41)(
		'%s, %s and %s in one run: phoned once as the canonical number, the other item skipped',
		async (_, first, second, number) => {
			const run = await execution('exec-1', { input: [{ to: first }, { to: second }] });

			expect(await dialled()).toEqual({ [number]: 1 });
			const [placed, skipped] = jsonOf(run);
			expect(placed).toMatchObject({ to: number });
			expect(skipped).toMatchObject({ id: placed.id, to: number, skipped: true });
		},
	);

	test.each(ISSUE_41)(
		'%s: a redelivery of %s 10 s later written %s, default skip window: the look-up finds the call, skipped',
		async (_, first, second, number) => {
			setClock(new Date().toISOString());
			try {
				const placed = await execution('exec-1', { input: [{ to: first }] });
				await endCall(sandbox, jsonOf(placed)[0].id);
				jumpClock(10_000);
				const again = await execution('exec-2', { input: [{ to: second }] });

				expect(await dialled()).toEqual({ [number]: 1 });
				expect(jsonOf(again)[0]).toMatchObject({
					id: jsonOf(placed)[0].id,
					to: number,
					skipped: true,
				});
			} finally {
				restoreClock();
			}
		},
	);

	test.each([
		['+370 8 612 34567', '+370 612 34567'],
		['+370 612', '+370 8 612 34567'],
		['+375 29', '+375 8029 123 45 67'],
		['+54 9 11', '+54 11 15 2345-6789'],
		['+241 0 11 23 45 67', '+241 11 23 45 67'],
	])('Allowed Destinations %s allow %s', async (allowed, to) => {
		const run = await execution('exec-1', {
			parameters: create({ allowedDestinations: allowed }),
			input: [{ to }],
		});

		expect(run.error).toBeUndefined();
		expect(Object.values(await dialled())).toEqual([1]);
	});

	test('Allowed Destinations +54 11 15 (a prefix too short to be a number is not rewritten) refuse +54 11 15 2345-6789, naming the item', async () => {
		const run = await execution('exec-1', {
			parameters: create({ allowedDestinations: '+54 11 15' }),
			input: [{ to: '+54 11 15 2345-6789' }],
		});

		expect(run.error?.message).toBe(
			'To +5491123456789 is not among the Allowed Destinations (+541115): no call was placed [item 0]',
		);
		expect(await dialled()).toEqual({});
	});
});

describe('Allowed Destinations compare the canonical forms', () => {
	test.each([
		['+44 20 7946 0123', '+44 (0)20 7946 0123'],
		['+44 (0)20', '+44 20 7946 0123'],
		['+44 (0)20 7946 0123', '+442079460123'],
	])('%s allows %s', async (allowed, to) => {
		const run = await execution('exec-1', {
			parameters: create({ allowedDestinations: allowed }),
			input: [{ to }],
		});

		expect(run.error).toBeUndefined();
		expect(await dialled()).toEqual({ '+442079460123': 1 });
	});
});

describe('what stays and what is refused', () => {
	test('Italy keeps its 0: +39 06 6982 1234 is dialled as +390669821234', async () => {
		const run = await execution('exec-1', { input: [{ to: '+39 06 6982 1234' }] });

		expect(jsonOf(run)[0]).toMatchObject({ to: '+390669821234' });
		expect(await dialled()).toEqual({ '+390669821234': 1 });
	});

	test.each([
		[
			'+39 (0)6 6982 1234',
			'To writes a national prefix "(0)" after +39, where numbers have none, so the number meant is unclear (got "+39 (0)6 6982 1234") [item 1]',
		],
		[
			'+44 20 7946 O123',
			'To must be a phone number in E.164 form, like +14155550123 (got "+44 20 7946 O123") [item 1]',
		],
		[
			'+44 (0)20 7946 01234 5678',
			'To must be a phone number in E.164 form, like +14155550123 (got "+44 (0)20 7946 01234 5678") [item 1]',
		],
		// A number typed as people write it at home: the error says to add the country code, and how.
		[
			'(415) 555-0123',
			'To must start with + and the country code: "+1 415 555 0123" for the US or Canada (got "(415) 555-0123") [item 1]',
		],
	])('%s is refused before anything is dialled, naming the item', async (to, message) => {
		const run = await execution('exec-1', { input: [{ to: '+14155550123' }, { to }] });

		expect(run.error?.message).toBe(message);
		expect(await dialled()).toEqual({});
	});
});

describe('outputs keep the number as given', () => {
	test('node 1.4: to is the canonical number dialled, to_given the spelling of the item when it differs', async () => {
		const run = await execution('exec-1', {
			typeVersion: 1.4,
			input: [{ to: '+44 (0)20 7946 0123' }, { to: '+14155550123' }],
		});

		const [written, plain] = jsonOf(run);
		expect(written).toMatchObject({ to: '+442079460123', to_given: '+44 (0)20 7946 0123' });
		expect(plain).toMatchObject({ to: '+14155550123' });
		expect(plain).not.toHaveProperty('to_given');
	});

	test('node 1.3 outputs what it always did: no to_given', async () => {
		const [call] = jsonOf(await execution('exec-1', { input: [{ to: '+44 (0)20 7946 0123' }] }));

		expect(call).toMatchObject({ to: '+442079460123' });
		expect(call).not.toHaveProperty('to_given');
	});
});

describe("Get Many's filter by number", () => {
	test('"+44 (0)20 7946 0123" finds the calls to +442079460123', async () => {
		const [agent] = (await sandbox.api('GET', '/agents')).body.agents as any[];
		const call = await placeCall(sandbox, agent, { to: '+442079460123' });
		await placeCall(sandbox, agent, { to: '+14155550123' });

		const run = await runNode({
			parameters: {
				resource: 'call',
				operation: 'getMany',
				returnAll: true,
				filters: { clientNumber: '+44 (0)20 7946 0123' },
			},
			credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		});

		expect(jsonOf(run).map((found) => found.id)).toEqual([call.id]);
		expect(await allCalls(sandbox)).toHaveLength(2);
	});
});
