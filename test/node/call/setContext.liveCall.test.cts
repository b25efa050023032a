/**
 * Call → Set Context on the live call of a client number: the workflow knows the customer's phone number,
 * not the call's ID. Run in n8n's engine against both services the sandbox plays.
 */
import * as api from '../../support/api.cts';
import { createAgent, wire, wireLines } from '../../support/api.cts';
import { rl } from '../../support/n8n.cts';
import { jsonOf, runWith } from '../../support/node.cts';
import { callInProgress, endCallOf, PROFILES, textId } from '../../support/profiles.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';

const CUSTOMER = '+14155550123';

describe.each(PROFILES)('the %s service', (profile) => {
	// Placed calls last an hour unless a test ends them (a live one is connected: until then the live service
	// lists it without the number called).
	const sandbox = useSandbox({ callDurationMs: 3_600_000, ringMs: 3_600_000, profile });

	/** A call in progress, its id as the nodes give it. */
	async function placeCall(agent: { phone_number: string }, fields: Record<string, unknown> = {}) {
		const call = await callInProgress(sandbox, profile, agent, fields);
		return { ...call, id: textId(call.id), wireId: call.id };
	}

	async function endCall(call: { id: string }, status = 'completed'): Promise<void> {
		await endCallOf(sandbox, profile, call.id, status);
	}

	const getCall = (id: string) => api.getCall(sandbox, id);
	/** The status a call ended with, as the nodes output it (a live call has none: completed). */
	const endedAs = (status: string) => (profile === 'live' ? 'completed' : status);

	function setContextOfLiveCall(fields: Record<string, unknown> = {}) {
		return {
			resource: 'call',
			operation: 'setContext',
			callBy: 'clientNumber',
			clientNumber: CUSTOMER,
			context: 'The customer just paid invoice #1042.',
			...fields,
		};
	}

	test('the one live call with the number gets the context; ended calls and other numbers are left alone', async () => {
		const agent = await createAgent(sandbox, { name: 'Billing' });
		await endCall(await placeCall(agent, { to: CUSTOMER, context: 'Last week' }));
		const live = await placeCall(agent, { to: CUSTOMER, context: 'Invoice #1042 is open' });
		const otherCustomer = await placeCall(agent, { to: '+14155550999' });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, setContextOfLiveCall());

		const [updated] = jsonOf(run);
		expect(updated).toMatchObject({
			id: live.id,
			to: CUSTOMER,
			status: 'in_progress',
			context: 'The customer just paid invoice #1042.',
			live_call_search: {
				client_number: CUSTOMER,
				agent_id: null,
				live_calls: 1,
				chosen: 'newest',
				other_live_call_ids: [],
			},
		});
		expect(await wire(sandbox)).toEqual([
			expect.objectContaining({
				method: 'GET',
				path: '/calls',
				query: { client_number: CUSTOMER, limit: '100' },
			}),
			expect.objectContaining({
				method: 'POST',
				path: '/call/context',
				body: { id: live.wireId, context: 'The customer just paid invoice #1042.' },
			}),
		]);
		expect((await getCall(otherCustomer.id)).context).toBe('Test call');
	});

	test('several live calls with the number: the newest gets it, and the output names the others', async () => {
		const agent = await createAgent(sandbox, { name: 'Billing' });
		const older = await placeCall(agent, { to: CUSTOMER, context: 'First line' });
		await sleep(5); // a later creation time, not a tie broken by the IDs
		const newer = await placeCall(agent, { to: CUSTOMER, context: 'Second line' });

		const run = await runWith(sandbox, setContextOfLiveCall());

		const [updated] = jsonOf(run);
		expect(updated.id).toBe(newer.id);
		expect(updated.live_call_search).toEqual({
			client_number: CUSTOMER,
			agent_id: null,
			live_calls: 2,
			chosen: 'newest',
			other_live_call_ids: [older.id],
		});
		expect((await getCall(older.id)).context).toBe('First line');
		const hints = run.run.data.resultData.runData['Voice Agent'][0].hints;
		expect(hints?.map((hint) => hint.message)).toEqual([
			`2 calls with ${CUSTOMER} are in progress: the newest (${newer.id}) got the context`,
		]);
	});

	test("with an agent (by name): only that agent's live call, even when another agent's is newer", async () => {
		const billing = await createAgent(sandbox, { name: 'Billing' });
		const sales = await createAgent(sandbox, { name: 'Sales', area_code: '212' });
		const billingCall = await placeCall(billing, { to: CUSTOMER });
		const salesCall = await placeCall(sales, { to: CUSTOMER });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, setContextOfLiveCall({ agent: rl('Billing', 'name') }));

		const [updated] = jsonOf(run);
		expect(updated.id).toBe(billingCall.id);
		expect(updated.live_call_search).toMatchObject({ agent_id: textId(billing.id), live_calls: 1 });
		expect((await getCall(salesCall.id)).context).toBe('Test call');
		expect((await wire(sandbox))[1].query).toEqual({
			agent_id: textId(billing.id),
			client_number: CUSTOMER,
			limit: '100',
		});
	});

	test('a live call behind a page of shorter, later calls is still found', async () => {
		const agent = await createAgent(sandbox, { name: 'Billing' });
		const live = await placeCall(agent, { to: CUSTOMER, context: 'Long call' });
		for (let n = 0; n < 105; n++) await endCall(await placeCall(agent, { to: CUSTOMER }));
		await sandbox.clearRequests();

		const run = await runWith(sandbox, setContextOfLiveCall());

		expect(jsonOf(run)[0].id).toBe(live.id);
		expect(await wireLines(sandbox)).toEqual([
			'GET /calls 200',
			'GET /calls 200',
			'POST /call/context 200',
		]);
	});

	describe('no live call with the number', () => {
		test('an error naming the number and what its latest call is; no context is sent', async () => {
			const agent = await createAgent(sandbox, { name: 'Billing' });
			const ended = await placeCall(agent, { to: CUSTOMER });
			await endCall(ended, 'failed');
			await sandbox.clearRequests();

			const run = await runWith(sandbox, setContextOfLiveCall());

			expect(run.error?.message).toBe(`No live call with ${CUSTOMER} was found [item 0]`);
			expect(run.error?.description).toBe(
				`Only a call in progress takes a new context. The latest call with this number (${ended.id}) is ${endedAs('failed')}.`,
			);
			expect(await wireLines(sandbox)).toEqual(['GET /calls 200']);
		});

		test('On Error → Continue: that item becomes an error item, the others get their context', async () => {
			const agent = await createAgent(sandbox, { name: 'Billing' });
			const live = await placeCall(agent, { to: CUSTOMER });

			const run = await runWith(
				sandbox,
				setContextOfLiveCall({ clientNumber: '={{ $json.phone }}', context: '={{ $json.note }}' }),
				{
					input: [
						{ phone: '+14155550777', note: 'Nobody is on the phone' },
						{ phone: CUSTOMER, note: 'Paid' },
					],
					continueOnFail: true,
				},
			);

			const [missing, updated] = jsonOf(run);
			expect(missing).toEqual({ error: 'No live call with +14155550777 was found [item 0]' });
			expect(updated).toMatchObject({ id: live.id, context: 'Paid' });
			expect(run.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		});

		test('a number that is not E.164 is an input error before anything is sent', async () => {
			const run = await runWith(sandbox, setContextOfLiveCall({ clientNumber: '555-0123' }));

			expect(run.error?.message).toBe(
				'Client Number must start with + and the country code, like +1 415 555 0123 (got "555-0123") [item 0]',
			);
			expect(await wire(sandbox)).toEqual([]);
		});
	});
});

describe('the live service: a call that still rings', () => {
	const sandbox = useSandbox({ ringMs: 3_600_000, profile: 'live' });

	test('is not listed with its number until it connects: no context is sent, and the error says no call was found', async () => {
		const agent = await createAgent(sandbox, { name: 'Billing' });
		const ringing = await api.placeCall(sandbox, agent, { to: CUSTOMER });
		await sandbox.clearRequests();

		const run = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callBy: 'clientNumber',
			clientNumber: CUSTOMER,
			context: 'Paid',
		});

		expect(run.error?.message).toBe(`No live call with ${CUSTOMER} was found [item 0]`);
		expect(await wireLines(sandbox)).toEqual(['GET /calls 200']);
		await sandbox.control('POST', `/calls/${ringing.id}/connect`);
		const connected = await runWith(sandbox, {
			resource: 'call',
			operation: 'setContext',
			callBy: 'clientNumber',
			clientNumber: CUSTOMER,
			context: 'Paid',
		});
		expect(jsonOf(connected)[0]).toMatchObject({ id: textId(ringing.id), context: 'Paid' });
	});
});
