/**
 * Call → Create's gate (issue 34) as a model of executions: fast-check draws a sequence of commands and
 * runs them against the REAL engine in this process (n8n-core, the built package) and the sandbox:
 * start an execution (node version 1.2 to 1.4, numbers that repeat, Retry On Fail), stop one, a fault,
 * a delay or a hang of the next POST /call, a call list that lags, Retry execution of an ended one, the
 * clock moved on, time passing. The settings each run shares (skip window 0 to 15, Calls at Once, the
 * pace, Wait for the Call to End, Max Calls per Hour) are drawn once per run. After every command, from
 * the service's own records of every call created (read by ID, so a lagging list hides nothing):
 *
 * - one agent never has two calls in progress to one person;
 * - no call to a number starts within the skip window of the one before;
 * - with version 1.4, waiting, no stop and no fault: calls in progress ≤ Calls at Once (the node's);
 * - the hour's calls ≤ Max Calls per Hour.
 *
 * Once every execution has ended: the gate holds no number in deciding or placing, no wait is pending,
 * and no node slot is taken or waited for. Settings: test/support/properties.cts.
 */
import fc from 'fast-check';

import { createAgent } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { runNode, type NodeRun } from '../../support/node.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSandbox } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';

// The package's own modules, as n8n loaded them for the runs (the same module instances).
const gate = require('../../../dist/nodes/VoiceAgent/actions/call/create/gate/numberGate.js');
const slots = require('../../../dist/nodes/VoiceAgent/actions/call/create/batch/nodeSlots.js');

const sandbox = useSandbox({ callDurationMs: 700 });
const NUMBERS = ['+14155558801', '+14155558802', '+14155558803'];
const HOUR_MS = 3_600_000;

interface Settings {
	version: number;
	window: number;
	callsAtOnce: number;
	perMinute: number;
	wait: boolean;
	budget: number;
}

interface Started {
	id: string;
	done: Promise<NodeRun>;
	stop(): void;
}

interface Real {
	agent: { id: string; name: string };
	settings: Settings;
	executions: Started[];
	/** A stop, a fault or a hang: an execution may free its slot while its call goes on. */
	slotsExact: boolean;
}

interface Model {
	executions: number;
}

function parameters({ settings, agent }: Real) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl(agent.name, 'name'),
		to: '={{ $json.to }}',
		skipCalledWithinMinutes: settings.window,
		options: {
			allowedDestinations: '+1415',
			maxCallsPerRun: 0,
			callsAtOnce: settings.callsAtOnce,
			maxCallsPerMinute: settings.perMinute,
			maxCallsPerHour: settings.budget,
			...(settings.wait ? { waitForEnd: true, maxWaitMinutes: 1, firstCheckSeconds: 1 } : {}),
		},
	};
}

function start(real: Real, input: string[], tries: number, retryOf?: NodeRun): Started {
	let stop = () => {};
	const stopped = new Promise<void>((resolve) => (stop = resolve));
	const id = `x${real.executions.length + 1}-${real.agent.id.slice(-6)}`;
	const done = runNode({
		parameters: parameters(real),
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: real.settings.version,
		executionId: id,
		input: input.map((to) => ({ to })),
		continueOnFail: true,
		cancelWhen: stopped,
		...(tries > 1 ? { settings: { retryOnFail: true, maxTries: tries, waitBetweenTries: 0 } } : {}),
		...(retryOf ? { retryOf: retryOf.run } : {}),
	});
	const started = { id, done, stop };
	real.executions.push(started);
	return started;
}

interface ServiceCall {
	id: string;
	to: string;
	createdMs: number;
	endedMs: number | undefined;
}

/** Every call the sandbox created for the run's agent, read by ID (GET /call never lags). */
async function callsCreated(real: Real): Promise<ServiceCall[]> {
	const ids = (await sandbox.requests())
		.map((request) => request.created_call_id)
		.filter((id): id is string => typeof id === 'string');
	const calls: ServiceCall[] = [];
	for (const id of ids) {
		const call = (await sandbox.api('GET', '/call', { query: { id } })).body;
		if (call.agent_id !== real.agent.id) continue;
		calls.push({
			id,
			to: call.to,
			createdMs: Date.parse(call.created_at),
			endedMs: call.ended_at ? Date.parse(call.ended_at) : undefined,
		});
	}
	return calls.sort((a, b) => a.createdMs - b.createdMs);
}

async function checkInvariants(real: Real): Promise<void> {
	const calls = await callsCreated(real);
	const byNumber = new Map<string, ServiceCall[]>();
	for (const call of calls) byNumber.set(call.to, [...(byNumber.get(call.to) ?? []), call]);
	for (const [to, list] of byNumber) {
		for (let n = 1; n < list.length; n++) {
			const [before, next] = [list[n - 1], list[n]];
			// Never two calls in progress to one person: the one before had ended when the next began.
			expect({ to, endedBeforeNext: (before.endedMs ?? Infinity) <= next.createdMs }).toEqual({
				to,
				endedBeforeNext: true,
			});
			// The skip window: no call within it of the one before.
			const gap = next.createdMs - before.createdMs;
			expect({ to, withinWindow: gap < real.settings.window * 60_000 }).toEqual({
				to,
				withinWindow: false,
			});
		}
	}
	if (real.settings.budget > 0) {
		const hour = calls.filter((call) => call.createdMs > Date.now() - HOUR_MS);
		expect(hour.length).toBeLessThanOrEqual(real.settings.budget);
	}
	if (real.settings.version >= 1.4 && real.settings.wait && real.slotsExact) {
		for (const call of calls) {
			const inProgress = calls.filter(
				(other) =>
					other.createdMs <= call.createdMs && (other.endedMs ?? Infinity) > call.createdMs,
			);
			expect(inProgress.length).toBeLessThanOrEqual(real.settings.callsAtOnce);
		}
	}
}

type Command = fc.AsyncCommand<Model, Real>;

const command = (
	name: string,
	act: (real: Real) => Promise<void> | void,
	when: (model: Model) => boolean = () => true,
	update: (model: Model) => void = () => {},
): Command => ({
	check: when,
	async run(model, real) {
		await act(real);
		update(model);
		await checkInvariants(real);
	},
	toString: () => name,
});

const commands = [
	fc
		.record({
			numbers: fc.array(fc.constantFrom(...NUMBERS), { minLength: 1, maxLength: 3 }),
			tries: fc.integer({ min: 1, max: 2 }),
		})
		.map(({ numbers, tries }) =>
			command(
				`start(${numbers.join(',')}; tries ${tries})`,
				(real) => void start(real, numbers, tries),
				() => true,
				(model) => model.executions++,
			),
		),
	fc.nat(5).map((index) =>
		command(
			`stop(${index})`,
			(real) => {
				real.executions[index % real.executions.length].stop();
				real.slotsExact = false;
			},
			(model) => model.executions > 0,
		),
	),
	fc.constantFrom('500 after', 'reset after', '400', 'delay', 'hang').map((kind) =>
		command(`next POST /call: ${kind}`, async (real) => {
			real.slotsExact = false;
			if (kind === 'delay' || kind === 'hang') {
				const latency_ms = kind === 'delay' ? 600 : 4_000;
				await sandbox.faults({ match: 'POST /call', latency_ms, times: 1 });
				return;
			}
			const [what, when] = kind.split(' ');
			const action = what === 'reset' ? { reset_rate: 1 } : { error_rate: 1, status: Number(what) };
			await sandbox.faults({
				match: 'POST /call',
				times: 1,
				when: (when ?? 'before') as 'before',
				...action,
			});
		}),
	),
	fc
		.constantFrom(0, 1_500)
		.map((lag) =>
			command(
				`list lag ${lag} ms`,
				async () => void (await sandbox.variants({ list_lag_ms: lag })),
			),
		),
	fc.nat(5).map((index) =>
		command(
			`retry execution(${index})`,
			async (real) => {
				const original = real.executions[index % real.executions.length];
				const run = await original.done;
				start(real, [], 1, run);
			},
			(model) => model.executions > 0,
			(model) => model.executions++,
		),
	),
	fc
		.constantFrom(10_000, 61_000)
		.map((ms) => command(`clock +${ms / 1000} s`, () => jumpClock(ms))),
	fc.constantFrom(200, 800).map((ms) => command(`pause ${ms} ms`, () => sleep(ms))),
];

const settings = fc.record({
	version: fc.constantFrom(1.2, 1.3, 1.4),
	window: fc.constantFrom(0, 1, 15),
	callsAtOnce: fc.integer({ min: 1, max: 3 }),
	perMinute: fc.constantFrom(0, 2),
	wait: fc.boolean(),
	budget: fc.constantFrom(0, 3),
});

/** Lets every execution end: paces and Slot Holds are moved past by the clock, hangs by time. */
async function settle(real: Real): Promise<void> {
	let open = true;
	void Promise.allSettled(real.executions.map((execution) => execution.done)).then(
		() => (open = false),
	);
	for (let step = 0; open && step < 60; step++) {
		await sleep(250);
		if (step % 4 === 3) jumpClock(61_000);
	}
	expect(open).toBe(false);
}

describe('the gate as a model of executions: any commands, in one n8n process', () => {
	test(
		'never two calls in progress to one person, the skip window, Calls at Once and the hour hold; nothing is left held',
		async () => {
			let runs = 0;
			// One clock for all runs that only moves forward: the pace's window is the node's, for all runs.
			setClock(new Date().toISOString());
			await fc
				.assert(
					fc.asyncProperty(
						settings,
						fc.commands(commands, { maxCommands: 8 }),
						async (drawn, cmds) => {
							try {
								// A new agent each run: its calls, its budget and its numbers in the gate are its own.
								const agent = await createAgent(sandbox, { name: `Gate ${++runs}` });
								await sandbox.clearRequests();
								const real: Real = { agent, settings: drawn, executions: [], slotsExact: true };
								await fc.asyncModelRun(() => ({ model: { executions: 0 }, real }), cmds);
								await sandbox.faults({});
								await sandbox.variants({});
								await settle(real);
								await checkInvariants(real);
								expect(gate.gateCounts()).toMatchObject({ deciding: 0, placing: 0, waits: 0 });
								expect(slots.slotsInUse()).toEqual({ taken: 0, waiting: 0 });
							} finally {
								await sandbox.faults({});
								await sandbox.variants({});
							}
						},
					),
					propertyParameters(15),
				)
				.finally(restoreClock);
		},
		propertyTimeout(15, 6_000),
	);
});
