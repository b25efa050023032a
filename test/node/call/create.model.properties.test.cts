/**
 * Call → Create's gate and guards as a model of many workflows, executions and two deployments of the
 * service, in one n8n process (issue 41): fast-check draws commands and runs them against the REAL engine
 * (n8n-core, the built package) and two sandboxes over real HTTP, each behind a scheduling proxy that holds
 * every request and every answer until fast-check's scheduler lets it through. A command's effect is itself
 * a task of the scheduler, so a stop, a clock jump, a call that ends or one placed from elsewhere lands
 * between any two requests or answers of the executions running: at each await of the engine.
 *
 * Each run draws the service: documented or live (the sandbox's live profile: no statuses, calls that ring
 * before they connect, numbers only once connected), the call list's lag (up to 5 hours, longer than every
 * bound of the engine), POST /call's answer (without the call), an in-progress status nobody listed, a fault
 * after the service acted on the first POST /call, and per person attempt 1 of Call Again placed before the run
 * by another process (ended or still in progress). It draws two or three workflows that call the same people,
 * each with its own node version (1 to 1.4), skip window (0, 1, 15), Calls at Once, pace, Wait for the Call to
 * End, Calling Hours (closing within seconds), Call Again (attempts fed from a lead store that outcomes are
 * written back to, or not) and its deployment: two deployments (staging and production) whose call IDs
 * coincide. Commands start executions (one person in several spellings, From by name, ID, list or number,
 * Retry On Fail, a webhook delivered twice, the people of an earlier start again), stop one, retry one (*Retry
 * execution*), end a call, place a call from elsewhere, fault the next request (POST /call failing after the
 * service acted, refused, slow or hanging; the list failing; GET /call answering 404), change what a deployment
 * answers, move the clock (10 s, 61 s, 16 min) or let time pass. Calls last until a command ends them.
 *
 * After every command, from the services' own records (every call created, read by ID):
 *
 * - one agent never has two calls in progress to one person, per deployment: whatever the skip window,
 *   however late the list, whatever POST /call answered (a call that rings is in progress);
 * - a call from elsewhere that the list showed, in progress and the newest to the number, is never joined by
 *   an item that looks it up (a skip window above 0, or Call Again from attempt 2);
 * - the skip window: no call within it of the number's newest call the list showed, nor of one this process
 *   holds (named: until a minute after its end, unless an item with a shorter window let it go first);
 * - nobody is dialled within a minute of a call nobody could name, while no list has shown it;
 * - no call sent outside its workflow's Calling Hours (by the clock when the node sent it);
 * - an attempt of Call Again fed again is never placed twice (one call per person and attempt from 2);
 * - Max Calls per Hour, per deployment.
 *
 * Once every call has ended and every execution with it: the gate holds no number deciding or placing, no
 * wait is pending, no node slot is taken or waited for. Settings: test/support/properties.cts;
 * VOICE_AGENT_MODEL_LOG=<file> appends each run's workflows, calls and outcomes to a file, one JSON line each.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import type { IDataObject } from 'n8n-workflow';

import { createAgent } from '../../support/api.cts';
import { jumpClock, restoreClock, setClock } from '../../support/clock.cts';
import { rl } from '../../support/n8n.cts';
import { runNode, type NodeRun } from '../../support/node.cts';
import { propertyParameters, propertyTimeout } from '../../support/properties.cts';
import { useSchedulingProxy, type SchedulingProxy } from '../../support/proxy.cts';
import { useSandbox, type TestSandbox, type VariantSettings } from '../../support/sandbox.cts';
import { sleep } from '../../support/wait.cts';

// The package's own modules, as n8n loaded them for the runs (the same module instances).
const gate = require('../../../dist/nodes/VoiceAgent/actions/call/create/gate/numberGate.js');
const slots = require('../../../dist/nodes/VoiceAgent/actions/call/create/batch/nodeSlots.js');

/** Calls last until a command ends them (or the run settles): the model decides when a call is over. */
const CALL_MS = 30 * 60_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** How long the gate keeps a call seen to end, and a call nobody could name (numberGate.ts). */
const GATE_MINUTE = MINUTE;
/** A node looks a number up again just before sending unless its last look is younger than this. */
const FRESH_LOOK_MS = 2_000;

// Two deployments of the service (staging and production): the same seed, so their call IDs coincide.
const DEPLOYMENTS = ['A', 'B'] as const;
type DeploymentName = (typeof DEPLOYMENTS)[number];
/** How long a call of the live service rings before it connects (the sandbox's live profile). */
const RING_MS = 1_000;
const PROFILES = ['documented', 'live'] as const;
type Profile = (typeof PROFILES)[number];
const sandboxes = {
	documented: {
		A: useSandbox({ callDurationMs: CALL_MS }),
		B: useSandbox({ callDurationMs: CALL_MS }),
	},
	live: {
		A: useSandbox({ callDurationMs: CALL_MS, profile: 'live', ringMs: RING_MS }),
		B: useSandbox({ callDurationMs: CALL_MS, profile: 'live', ringMs: RING_MS }),
	},
};
const proxyFor = (sandbox: TestSandbox) => useSchedulingProxy(sandbox, { stampCalls: true });
const proxies = {
	documented: { A: proxyFor(sandboxes.documented.A), B: proxyFor(sandboxes.documented.B) },
	live: { A: proxyFor(sandboxes.live.A), B: proxyFor(sandboxes.live.B) },
};

/** The people called, each in the spellings a CRM or a redelivery may write. */
const PEOPLE = [
	{ number: '+14155550101', spellings: ['+14155550101', '+1 415 555 0101', '+1 (415) 555-0101'] },
	{
		number: '+442079460123',
		spellings: ['+44 20 7946 0123', '+44 (0)20 7946 0123', '+442079460123'],
	},
	{ number: '+14155550102', spellings: ['+1-415-555-0102', '+14155550102'] },
];
const ALLOWED = '+1415, +4420';
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
/** Each run starts a day after the one before, 20 s before 10:01 UTC (its commands 10 s later). */
const FIRST_RUN = Date.parse('2026-03-09T10:00:40Z');
/** Calling Hours open at 09:00 UTC and close at one of these, seconds after a run starts. */
const CLOSES = { soon: '10:01', later: '10:03' } as const;

const workflowArb = fc.record({
	deployment: fc.constantFrom<DeploymentName>('A', 'A', 'B'),
	version: fc.constantFrom(1, 1.1, 1.2, 1.3, 1.3, 1.4, 1.4),
	window: fc.constantFrom(0, 1, 15, 15),
	callsAtOnce: fc.constantFrom(1, 2),
	wait: fc.boolean(),
	perMinute: fc.constantFrom(0, 0, 0, 2),
	hours: fc.constantFrom<'none' | keyof typeof CLOSES>('none', 'none', 'soon', 'later'),
	callAgain: fc.boolean(),
	maxCalls: fc.constantFrom(0, 0, 1),
});
type DrawnWorkflow = typeof workflowArb extends fc.Arbitrary<infer T> ? T : never;

/** How both deployments answer when a run starts (commands change it for one of them). */
const serviceArb = fc.record({
	profile: fc.constantFrom<Profile>(...PROFILES),
	lag: fc.constantFrom(0, 5_000, 70_000, 5 * HOUR),
	answer: fc.constantFrom('call', 'call', 'empty_202', 'status_call_id'),
	liveStatus: fc.constantFrom('in_progress', 'in_progress', 'bridged'),
	/** The first POST /call of each deployment (after `skip` others) fails after the service acted. */
	postFault: fc.option(
		fc.record({ kind: fc.constantFrom('500 after', 'reset after'), skip: fc.nat(1) }),
		{ nil: undefined },
	),
	/**
	 * Per person, before the run: nothing, or attempt 1's call (from another process), ended or still in
	 * progress, with the lead store at attempt 2: leads come in at a later attempt.
	 */
	before: fc.array(fc.constantFrom('none', 'ended', 'live', 'live'), {
		minLength: PEOPLE.length,
		maxLength: PEOPLE.length,
	}),
});
type Service = typeof serviceArb extends fc.Arbitrary<infer T> ? T : never;

/** A workflow as it runs: what its node's version makes of what was drawn. */
interface Workflow {
	name: string;
	deployment: DeploymentName;
	version: number;
	/** The skip window in force (0 before version 1.2). */
	window: number;
	callsAtOnce: number;
	wait: boolean;
	perMinute: number;
	/** When Calling Hours close (version 1.3 on), HH:MM UTC. */
	closes?: string;
	callAgain: boolean;
	maxCalls: number;
}

function workflowOf(drawn: DrawnWorkflow, index: number): Workflow {
	const outcomes = drawn.version >= 1.3;
	const callAgain = outcomes && drawn.callAgain;
	return {
		name: `wf${index + 1}`,
		deployment: drawn.deployment,
		version: drawn.version,
		window: drawn.version >= 1.2 ? drawn.window : 0,
		callsAtOnce: drawn.callsAtOnce,
		wait: drawn.wait || callAgain,
		perMinute: drawn.perMinute,
		...(outcomes && drawn.hours !== 'none' ? { closes: CLOSES[drawn.hours] } : {}),
		callAgain,
		maxCalls: drawn.maxCalls,
	};
}

interface Deployment {
	name: DeploymentName;
	/** The service as documented, or as the live service's own code answers (no statuses, calls that ring). */
	profile: Profile;
	sandbox: TestSandbox;
	proxy: SchedulingProxy;
	agent: { id: string | number; name: string; phone_number: string };
	variants: VariantSettings;
	/** The call list's lag from each moment on (clock ms), oldest first. */
	lags: { from: number; ms: number }[];
	/** POST /call's answer shape from each moment on. */
	answers: { from: number; answer: string }[];
	/** Calls placed from elsewhere (another n8n process, a person): not the node's. */
	elsewhere: Set<string>;
}

/** An item an execution was fed: what the invariants need to know of who wanted a number, and how. */
interface Fed {
	deployment: DeploymentName;
	number: string;
	window: number;
	attempt: number;
	at: number;
}

interface Execution {
	id: string;
	workflow: Workflow;
	done: Promise<NodeRun | undefined>;
	/** Its run, once n8n ended it. */
	finished?: NodeRun;
	ended: boolean;
	stop(): void;
}

interface Real {
	run: number;
	budget: number;
	workflows: Workflow[];
	deployments: Record<DeploymentName, Deployment>;
	executions: Execution[];
	/** The lead store of Call Again, per deployment and number: the attempt due and its previous call. */
	leads: Map<string, { attempt: number; callId: string }>;
	fed: Fed[];
	/** The people each start fed, in order. */
	starts: { person: number; spelling: number }[][];
	scheduler: fc.Scheduler;
	/** What went wrong in an effect (a request to a sandbox): the run fails with it. */
	errors: unknown[];
	/** The clock's jumps: a call sent right after one was checked against Calling Hours just before it. */
	jumps: { before: number; after: number }[];
}

/**
 * The command's effect, as a task of the scheduler: it lands between any two of the requests and answers
 * in flight, wherever the scheduler puts it. The command is over once it landed.
 */
async function later(real: Real, label: string, effect: () => unknown): Promise<void> {
	try {
		await real.scheduler.schedule(Promise.resolve(), label);
		await effect();
	} catch (error) {
		real.errors.push(error);
	}
}

const contextOf = (workflow: Workflow, number: string, attempt: number) =>
	`${workflow.name} calls ${number}${workflow.callAgain ? ` attempt ${attempt}` : ''}`;

function parameters(real: Real, workflow: Workflow, from: string) {
	const { agent } = real.deployments[workflow.deployment];
	const value =
		from === 'name' ? agent.name : from === 'phoneNumber' ? agent.phone_number : String(agent.id);
	return {
		resource: 'call',
		operation: 'create',
		from: rl(value, from as 'id'),
		to: '={{ $json.to }}',
		context: '={{ $json.context }}',
		skipCalledWithinMinutes: workflow.window,
		options: {
			allowedDestinations: ALLOWED,
			maxCallsPerRun: workflow.maxCalls,
			maxCallsPerHour: real.budget,
			callsAtOnce: workflow.callsAtOnce,
			maxCallsPerMinute: workflow.perMinute,
			...(workflow.wait ? { waitForEnd: true, maxWaitMinutes: 1, firstCheckSeconds: 1 } : {}),
			...(workflow.closes
				? {
						callingHours: {
							hours: {
								days: DAYS,
								from: '09:00',
								until: workflow.closes,
								timeZone: 'given',
								zone: 'UTC',
							},
						},
					}
				: {}),
			...(workflow.callAgain
				? { callAgain: { settings: { attempts: 3, minutesBetween: 0 } } }
				: {}),
		},
	};
}

interface StartCommand {
	workflow: number;
	people: { person: number; spelling: number }[];
	from: string;
	tries: number;
	continueOnFail: boolean;
	/** The execution's outcomes never reach the lead store (n8n stopped before the write, a lost update). */
	lostWrite: boolean;
	/** Executions started with this input at the same moment: a webhook delivered twice, two passes. */
	copies: number;
	/** The people of an earlier start again (in their next spelling): a redelivery, a later pass. */
	again?: number;
}

function launch(
	real: Real,
	workflow: Workflow,
	run: {
		input?: IDataObject[];
		from: string;
		tries: number;
		continueOnFail: boolean;
		lostWrite: boolean;
		retryOf?: NodeRun;
	},
): void {
	const deployment = real.deployments[workflow.deployment];
	let stop = () => {};
	const stopped = new Promise<void>((resolve) => (stop = resolve));
	const id = `r${real.run}-x${real.executions.length + 1}`;
	const done = runNode({
		parameters: parameters(real, workflow, run.from),
		credentials: { apiKey: deployment.sandbox.apiKey, baseUrl: `${deployment.proxy.origin}/v1` },
		typeVersion: workflow.version,
		workflowId: workflow.name,
		executionId: id,
		input: run.input ?? [],
		continueOnFail: run.continueOnFail,
		cancelWhen: stopped,
		...(run.tries > 1
			? { settings: { retryOnFail: true, maxTries: run.tries, waitBetweenTries: 0 } }
			: {}),
		...(run.retryOf ? { retryOf: run.retryOf.run } : {}),
	});
	const execution: Execution = {
		id,
		workflow,
		stop,
		ended: false,
		done: done.then(
			(result) => result,
			(error: unknown) => void real.errors.push(error),
		),
	};
	real.executions.push(execution);
	void execution.done.then((result) => {
		execution.ended = true;
		if (!result) return;
		execution.finished = result;
		if (run.lostWrite || !workflow.callAgain) return;
		// The lead store takes each lead's next attempt and its previous call, as the campaign example does.
		for (const { json } of result.items) {
			if (json.outcome !== 'retry_due' || typeof json.call_id !== 'string') continue;
			const number = String(json.to);
			real.leads.set(`${workflow.deployment}|${number}`, {
				attempt: Number(json.attempt),
				callId: json.call_id,
			});
		}
	});
}

function start(real: Real, command: StartCommand): void {
	const workflow = real.workflows[command.workflow % real.workflows.length];
	const earlier =
		command.again === undefined || real.starts.length === 0
			? undefined
			: real.starts[command.again % real.starts.length];
	const people =
		earlier?.map(({ person, spelling }) => ({ person, spelling: spelling + 1 })) ?? command.people;
	real.starts.push(people);
	const input = people.map(({ person, spelling }) => {
		const { number, spellings } = PEOPLE[person % PEOPLE.length];
		const lead = workflow.callAgain
			? (real.leads.get(`${workflow.deployment}|${number}`) ?? { attempt: 1, callId: '' })
			: { attempt: 1, callId: '' };
		real.fed.push({
			deployment: workflow.deployment,
			number,
			window: workflow.window,
			attempt: lead.attempt,
			at: Date.now(),
		});
		return {
			to: spellings[spelling % spellings.length],
			context: contextOf(workflow, number, lead.attempt),
			attempt: lead.attempt,
			call_id: lead.callId,
		};
	});
	for (let copy = 0; copy < command.copies; copy++) launch(real, workflow, { ...command, input });
}

interface ServiceCall {
	id: string;
	deployment: DeploymentName;
	to: string;
	context: string;
	/** Placed by the node (through its proxy), not from elsewhere. */
	byNode: boolean;
	/** The clock when the node sent it (the proxy's stamp); its creation for calls from elsewhere. */
	sentMs: number;
	createdMs: number;
	endedMs: number;
	/** POST /call answered a 2xx that named it. */
	named: boolean;
}

const lagAt = (deployment: Deployment, at: number) =>
	deployment.lags.filter((lag) => lag.from <= at).at(-1)?.ms ?? 0;
/** Ends a call now: as `status` at the documented service; the live one writes no status (a hang-up). */
async function endCall(deployment: Deployment, id: string, status: string): Promise<void> {
	const body = deployment.profile === 'live' ? {} : { status };
	await deployment.sandbox.control('POST', `/calls/${id}/complete`, body);
}

/** Every lag in force at some moment from `from` to `until`. */
const lagsDuring = (deployment: Deployment, from: number, until: number) => [
	lagAt(deployment, from),
	...deployment.lags.filter((lag) => lag.from > from && lag.from <= until).map((lag) => lag.ms),
];
const longestLag = (deployment: Deployment, from: number, until: number) =>
	Math.max(...lagsDuring(deployment, from, until));
/** Whether the list surely showed the call `ms` before `at`, however its lag changed meanwhile. */
const listedBefore = (deployment: Deployment, call: ServiceCall, at: number) =>
	call.createdMs + longestLag(deployment, call.createdMs, at) <= at - FRESH_LOOK_MS;

/** Every call each deployment created, read by ID (GET /call never lags), oldest first. */
async function serviceCalls(real: Real): Promise<ServiceCall[]> {
	const calls: ServiceCall[] = [];
	for (const name of DEPLOYMENTS) {
		const deployment = real.deployments[name];
		for (const request of await deployment.sandbox.requests()) {
			if (request.created_call_id === undefined) continue;
			const id = String(request.created_call_id);
			const read = await deployment.sandbox.api('GET', '/call', { query: { id } });
			if (read.status !== 200)
				throw new Error(
					`GET /call ${id} of ${name}: ${read.status} ${JSON.stringify(read.body)} (${JSON.stringify(request)})`,
				);
			const call = read.body;
			const createdMs = Date.parse(call.created_at);
			const arrived = Date.parse(request.at);
			const answer = deployment.answers.filter((entry) => entry.from <= arrived).at(-1)?.answer;
			// The live service writes the zero time for an end it has not had, and no number while a call rings.
			const ended = typeof call.ended_at === 'string' && !call.ended_at.startsWith('0001-');
			calls.push({
				id,
				deployment: name,
				to: (request.body as { to: string }).to,
				context: call.context ?? '',
				byNode: !deployment.elsewhere.has(id),
				sentMs: Number(request.query.sent_at ?? createdMs),
				createdMs,
				endedMs: ended ? Date.parse(call.ended_at) : Infinity,
				named:
					request.status !== null &&
					request.status >= 200 &&
					request.status < 300 &&
					(deployment.profile === 'live' || (answer ?? 'call') === 'call'),
			});
		}
	}
	return calls.sort((a, b) => a.createdMs - b.createdMs);
}

/** The workflow and attempt of a call the node placed, read from its context. */
function placedBy(real: Real, call: ServiceCall) {
	const match = /^(wf\d+) calls \S+(?: attempt (\d+))?$/.exec(call.context);
	const workflow = real.workflows.find((candidate) => candidate.name === match?.[1]);
	if (!match || !workflow)
		throw new Error(`A call the model did not place: ${JSON.stringify(call)}`);
	return { workflow, attempt: Number(match[2] ?? 1) };
}

const clockOf = (ms: number) => new Date(ms).toISOString().slice(11, 16);

async function checkInvariants(real: Real): Promise<void> {
	const calls = await serviceCalls(real);
	for (const call of calls.filter((each) => each.byNode)) {
		const deployment = real.deployments[call.deployment];
		const { workflow, attempt } = placedBy(real, call);
		const earlier = calls.filter(
			(other) =>
				other !== call &&
				other.deployment === call.deployment &&
				other.to === call.to &&
				other.createdMs <= call.createdMs,
		);
		const said = (what: string, other?: ServiceCall) => ({
			call: call.id,
			deployment: call.deployment,
			to: call.to,
			what,
			other: other?.id,
		});
		// Never two calls in progress to one person, per agent and deployment.
		for (const other of earlier.filter((each) => each.byNode && each.endedMs > call.createdMs))
			expect(
				said('began while an earlier call of the node to the person was in progress', other),
			).toEqual(said('ok', other));
		const newest = earlier.filter((other) => other.createdMs < call.sentMs).at(-1);
		const looksUp = workflow.window > 0 || attempt > 1;
		if (newest && looksUp && listedBefore(deployment, newest, call.sentMs)) {
			// The newest call the list showed, from elsewhere too: in progress, it is never joined.
			if (!newest.byNode && newest.endedMs > call.sentMs)
				expect(said('joined a listed call in progress', newest)).toEqual(said('ok', newest));
			// Within the skip window of the newest call the list showed, attempt 1 is never placed.
			if (attempt === 1 && call.sentMs - newest.createdMs < workflow.window * MINUTE)
				expect(said(`placed within ${workflow.window} min of a listed call`, newest)).toEqual(
					said('ok', newest),
				);
		}
		for (const held of earlier.filter((each) => each.byNode && each.createdMs < call.sentMs)) {
			const neverListed =
				held.createdMs + Math.min(...lagsDuring(deployment, held.createdMs, call.sentMs)) >
				call.sentMs;
			// A call nobody could name (POST /call answered without it, or not at all) that no list showed is
			// held a minute after it was placed: until then nobody dials the person, whatever their window.
			if (!held.named && neverListed && call.sentMs < held.createdMs + GATE_MINUTE)
				expect(said('placed within a minute of a call nobody could name', held)).toEqual(
					said('ok', held),
				);
			// A named call is held until a minute after it was seen to end, for every item within its window,
			// unless an item with a shorter window (or Call Again's attempt, which has none) let it go first.
			const lettingGo = real.fed.some(
				(fed) =>
					fed.deployment === call.deployment &&
					fed.number === call.to &&
					fed.at <= call.sentMs &&
					(fed.window < workflow.window || fed.attempt > 1),
			);
			if (
				held.named &&
				attempt === 1 &&
				!lettingGo &&
				call.sentMs < held.endedMs + GATE_MINUTE &&
				call.sentMs - held.createdMs < workflow.window * MINUTE
			)
				expect(
					said(`placed within ${workflow.window} min of a call the process holds`, held),
				).toEqual(said('ok', held));
		}
		// Calling Hours, by the clock when the node sent the call (or just before a jump it met on its way).
		if (workflow.closes) {
			const closes = workflow.closes;
			const inside = (ms: number) => clockOf(ms) >= '09:00' && clockOf(ms) < closes;
			const sent = clockOf(call.sentMs);
			const jumpedOnItsWay = real.jumps.some(
				(jump) =>
					call.sentMs >= jump.after && call.sentMs - jump.after < 200 && inside(jump.before),
			);
			expect({ ...said('sent at'), sent, inside: inside(call.sentMs) || jumpedOnItsWay }).toEqual({
				...said('sent at'),
				sent,
				inside: true,
			});
		}
	}
	// An attempt of Call Again fed again is never placed twice.
	const attempts = new Map<string, string[]>();
	for (const call of calls.filter((each) => each.byNode)) {
		const { attempt } = placedBy(real, call);
		if (attempt < 2) continue;
		const key = `${call.deployment}|${call.to}|attempt ${attempt}`;
		attempts.set(key, [...(attempts.get(key) ?? []), call.id]);
	}
	for (const [attempt, ids] of attempts)
		expect({ attempt, calls: ids.length }).toEqual({ attempt, calls: 1 });
	// Max Calls per Hour, per deployment (one agent each).
	if (real.budget > 0)
		for (const name of DEPLOYMENTS) {
			const times = calls
				.filter((call) => call.byNode && call.deployment === name)
				.map((call) => call.createdMs);
			for (const time of times) {
				const hour = times.filter((other) => other <= time && other > time - HOUR).length;
				expect({ deployment: name, hour }).toEqual({
					deployment: name,
					hour: Math.min(hour, real.budget),
				});
			}
		}
}

type Command = fc.AsyncCommand<object, Real>;

/** A command: always applicable (an effect that finds nothing to act on does nothing). */
const command = (name: string, act: (real: Real) => unknown): Command => ({
	check: () => true,
	run: async (_model, real) => void (await act(real)),
	toString: () => name,
});

const startArb = fc
	.record({
		workflow: fc.nat(2),
		people: fc.array(fc.record({ person: fc.nat(2), spelling: fc.nat(2) }), {
			minLength: 1,
			maxLength: 2,
		}),
		from: fc.constantFrom('name', 'id', 'list', 'phoneNumber'),
		tries: fc.constantFrom(1, 1, 2),
		continueOnFail: fc.boolean(),
		lostWrite: fc.boolean(),
		copies: fc.constantFrom(1, 1, 2),
		again: fc.option(fc.nat(5), { freq: 2, nil: undefined }),
	})
	.map((drawn) =>
		command(`start(${JSON.stringify(drawn)})`, (real) =>
			later(real, `start wf${drawn.workflow}`, () => start(real, drawn)),
		),
	);

const endCallArb = fc
	.record({
		of: fc.option(fc.nat(5), { freq: 2, nil: undefined }),
		index: fc.nat(5),
		status: fc.constantFrom('completed', 'busy'),
	})
	.map(({ of, index, status }) =>
		command(
			`end call(${of === undefined ? `any ${index}` : `of start ${of}`}, ${status})`,
			(real) =>
				later(real, 'end call', async () => {
					// A call of an earlier start (its people's oldest call in progress), or any call in progress.
					const numbers =
						of === undefined || real.starts.length === 0
							? undefined
							: real.starts[of % real.starts.length].map(
									({ person }) => PEOPLE[person % PEOPLE.length].number,
								);
					const live = (await serviceCalls(real)).filter(
						(call) => call.endedMs === Infinity && (!numbers || numbers.includes(call.to)),
					);
					const call = numbers ? live[0] : live[index % Math.max(1, live.length)];
					if (call) await endCall(real.deployments[call.deployment], call.id, status);
				}),
		),
	);

const commands = [
	startArb,
	startArb,
	startArb,
	startArb,
	startArb,
	startArb,
	fc
		.nat(5)
		.map((index) =>
			command(`stop(${index})`, (real) =>
				later(real, `stop ${index}`, () =>
					real.executions[index % Math.max(1, real.executions.length)]?.stop(),
				),
			),
		),
	endCallArb,
	endCallArb,
	fc
		.record({ deployment: fc.constantFrom<DeploymentName>(...DEPLOYMENTS), person: fc.nat(2) })
		.map(({ deployment, person }) =>
			command(`call from elsewhere(${deployment}, ${person})`, (real) =>
				later(real, 'call from elsewhere', async () => {
					// As another n8n process or a person would: straight to the service, faults and answers as they are.
					const { sandbox, agent, elsewhere } = real.deployments[deployment];
					const context = `elsewhere ${elsewhere.size + 1}`;
					const body = {
						from: agent.phone_number,
						to: PEOPLE[person % PEOPLE.length].number,
						context,
					};
					await sandbox.api('POST', '/call', { body }).catch(() => undefined);
					const made = (await sandbox.requests()).find(
						(request) => (request.body as { context?: string } | null)?.context === context,
					);
					if (made?.created_call_id !== undefined) elsewhere.add(String(made.created_call_id));
				}),
			),
		),
	fc
		.record({
			deployment: fc.constantFrom<DeploymentName>(...DEPLOYMENTS),
			kind: fc.constantFrom(
				'500 after',
				'reset after',
				'400',
				'slow',
				'hang',
				'list 500',
				'read 404',
			),
		})
		.map(({ deployment, kind }) =>
			command(`fault(${deployment}, ${kind})`, (real) =>
				later(real, `fault ${kind}`, async () => {
					const { sandbox } = real.deployments[deployment];
					// GET /call by ID answers 404 once: a read that has not caught up with the call yet.
					if (kind === 'read 404')
						return void (await sandbox.faults({
							match: 'GET /call',
							times: 1,
							error_rate: 1,
							status: 404,
						}));
					if (kind === 'list 500')
						return void (await sandbox.faults({
							match: 'GET /calls',
							times: 1,
							error_rate: 1,
							status: 500,
						}));
					if (kind === 'slow' || kind === 'hang')
						return void (await sandbox.faults({
							match: 'POST /call',
							times: 1,
							latency_ms: kind === 'slow' ? 600 : 4_000,
						}));
					const [what, when] = kind.split(' ');
					const action =
						what === 'reset' ? { reset_rate: 1 } : { error_rate: 1, status: Number(what) };
					await sandbox.faults({
						match: 'POST /call',
						times: 1,
						when: (when ?? 'before') as 'before',
						...action,
					});
				}),
			),
		),
	fc
		.record({
			deployment: fc.constantFrom<DeploymentName>(...DEPLOYMENTS),
			variant: fc.oneof(
				fc.constantFrom(0, 5_000, 70_000, 5 * HOUR).map((ms) => ({ list_lag_ms: ms })),
				fc
					.constantFrom('call', 'empty_202', 'status_call_id')
					.map((answer) => ({ create_answer: answer })),
				fc.constantFrom('in_progress', 'bridged').map((status) => ({ live_status: status })),
			),
		})
		.map(({ deployment, variant }) =>
			command(`variant(${deployment}, ${JSON.stringify(variant)})`, (real) =>
				later(real, 'variant', async () => {
					const target = real.deployments[deployment];
					target.variants = { ...target.variants, ...variant } as VariantSettings;
					await target.sandbox.variants(target.variants);
					if ('list_lag_ms' in variant)
						target.lags.push({ from: Date.now(), ms: variant.list_lag_ms });
					if ('create_answer' in variant)
						target.answers.push({ from: Date.now(), answer: variant.create_answer });
				}),
			),
		),
	fc.constantFrom(10_000, 61_000, 61_000, 16 * MINUTE).map((ms) =>
		command(`clock +${ms / 1000} s`, (real) =>
			later(real, `clock +${ms / 1000} s`, () => {
				const before = Date.now();
				jumpClock(ms);
				real.jumps.push({ before, after: Date.now() });
			}),
		),
	),
	fc.nat(5).map((index) =>
		command(`retry execution(${index})`, (real) =>
			later(real, `retry ${index}`, () => {
				const finished = real.executions.filter((execution) => execution.finished?.error);
				const original = finished[index % Math.max(1, finished.length)];
				if (original?.finished)
					launch(real, original.workflow, {
						from: 'id',
						tries: 1,
						continueOnFail: false,
						lostWrite: false,
						retryOf: original.finished,
					});
			}),
		),
	),
	fc.constantFrom(300, 1_500, 4_500).map((ms) => command(`let ${ms} ms pass`, () => sleep(ms))),
	fc.constantFrom(300, 1_500, 4_500).map((ms) => command(`let ${ms} ms pass`, () => sleep(ms))),
];

/** Both deployments as the run's service draws them: lag, answers, a fault, attempts placed before. */
async function prepare(real: Real, service: Service): Promise<void> {
	for (const name of DEPLOYMENTS) {
		const deployment = real.deployments[name];
		const { sandbox, agent } = deployment;
		for (const [index, before] of service.before.entries()) {
			if (before === 'none') continue;
			const { number } = PEOPLE[index];
			const context = `attempt 1 of ${number}, before the run`;
			await sandbox.api('POST', '/call', {
				body: { from: agent.phone_number, to: number, context },
			});
			const made = (await sandbox.requests()).find(
				(request) => (request.body as { context?: string } | null)?.context === context,
			);
			const callId = String(made?.created_call_id);
			deployment.elsewhere.add(callId);
			if (before === 'ended') await endCall(deployment, callId, 'busy');
			real.leads.set(`${name}|${number}`, { attempt: 2, callId });
		}
		deployment.variants = {
			list_lag_ms: service.lag,
			create_answer: service.answer as 'call',
			live_status: service.liveStatus,
		};
		await sandbox.variants(deployment.variants);
		deployment.lags.push({ from: 0, ms: service.lag });
		deployment.answers.push({ from: 0, answer: service.answer });
		if (service.postFault) {
			const [what, when] = service.postFault.kind.split(' ');
			const action = what === 'reset' ? { reset_rate: 1 } : { error_rate: 1, status: Number(what) };
			await sandbox.faults({
				match: 'POST /call',
				times: 1,
				skip: service.postFault.skip,
				when: when as 'after',
				...action,
			});
		}
	}
}

/** With VOICE_AGENT_MODEL_LOG: the run as one JSON line (its commands, workflows, calls and outcomes). */
async function logRun(real: Real, commands: string): Promise<void> {
	const file = process.env.VOICE_AGENT_MODEL_LOG;
	if (!file) return;
	const calls = (await serviceCalls(real)).map((call) => ({
		...call,
		sentMs: call.sentMs - FIRST_RUN,
		createdMs: call.createdMs - FIRST_RUN,
		endedMs: call.endedMs - FIRST_RUN,
	}));
	const executions = real.executions.map((execution) => ({
		id: execution.id,
		workflow: execution.workflow.name,
		error: execution.finished?.error?.message,
		items: execution.finished?.items.map(({ json }) => [
			json.outcome,
			json.id,
			json.skipReason ?? json.error,
		]),
	}));
	const { run, budget, workflows } = real;
	fs.appendFileSync(
		file,
		`${JSON.stringify({ run, budget, commands, workflows, calls, executions })}\n`,
	);
}

/** Lets every call end, and every execution with it; fails if one never ends. */
async function settle(real: Real): Promise<void> {
	// The service answers on as it did (its lag too): only faults end, so that no request hangs.
	for (const name of DEPLOYMENTS) await real.deployments[name].sandbox.faults({});
	let open = true;
	for (let step = 0; open && step < 120; step++) {
		for (const call of (await serviceCalls(real)).filter((each) => each.endedMs === Infinity))
			await endCall(real.deployments[call.deployment], call.id, 'completed');
		open = real.executions.some((execution) => !execution.ended);
		if (open) await sleep(250);
		// Paces, Max Waits and Slot Holds are passed by the clock.
		if (step % 4 === 3) jumpClock(61_000);
	}
	expect({ executionsStillRunning: open }).toEqual({ executionsStillRunning: false });
	// An execution n8n stopped ends at once; its node's last steps (a wait it leaves) may take a moment more.
	for (let step = 0; step < 40; step++) {
		const counts = gate.gateCounts();
		if (counts.deciding + counts.placing + counts.waits === 0) break;
		await sleep(50);
	}
}

describe('the gate and the guards as a model of workflows, executions and two deployments', () => {
	test(
		'one call in progress per person, the skip window, Calling Hours, attempts and the hour hold; nothing is left held',
		async () => {
			let runs = 0;
			setClock(new Date(FIRST_RUN).toISOString());
			await fc
				.assert(
					fc.asyncProperty(
						fc.array(workflowArb, { minLength: 2, maxLength: 3 }),
						serviceArb,
						fc.constantFrom(0, 0, 2),
						startArb,
						fc.commands(commands, { maxCommands: 20, size: 'medium' }),
						fc.scheduler(),
						async (drawn, service, budget, first, cmds, scheduler) => {
							const run = ++runs;
							// Each run a day later: the hour's budget and the pace remember nothing of the last one.
							jumpClock(Math.max(0, FIRST_RUN + (run - 1) * 24 * HOUR - Date.now()));
							const deployments = {} as Record<DeploymentName, Deployment>;
							for (const name of DEPLOYMENTS) {
								const sandbox = sandboxes[service.profile][name];
								// A reset service begins its call IDs again (the gate forgets it): A and B coincide.
								await sandbox.reset();
								const agent = await createAgent(sandbox, { name: 'Front Desk' });
								deployments[name] = {
									name,
									profile: service.profile,
									sandbox,
									proxy: proxies[service.profile][name],
									agent,
									variants: {},
									lags: [],
									answers: [],
									elsewhere: new Set(),
								};
								deployments[name].proxy.use(scheduler);
							}
							const real: Real = {
								run,
								budget,
								workflows: drawn.map(workflowOf),
								deployments,
								executions: [],
								leads: new Map(),
								fed: [],
								starts: [],
								scheduler,
								errors: [],
								jumps: [],
							};
							try {
								await prepare(real, service);
								// The attempts placed before the run are 10 s old when its commands begin.
								jumpClock(10_000);
								// Every run begins with a start: a run of commands without one tests nothing.
								for (const cmd of [first, ...cmds]) {
									if (!(await cmd.check({}))) continue;
									await scheduler.waitFor(cmd.run({}, real));
									await checkInvariants(real);
								}
								await scheduler.waitFor(settle(real));
								expect(real.errors).toEqual([]);
								await checkInvariants(real);
								expect(gate.gateCounts()).toMatchObject({ deciding: 0, placing: 0, waits: 0 });
								expect(slots.slotsInUse()).toEqual({ taken: 0, waiting: 0 });
							} finally {
								await logRun(real, [first, ...cmds].join(','));
								for (const name of DEPLOYMENTS) {
									real.deployments[name].proxy.use(undefined);
									for (const execution of real.executions) execution.stop();
									await real.deployments[name].sandbox.faults({});
									await real.deployments[name].sandbox.variants({});
								}
							}
						},
					),
					propertyParameters(8),
				)
				.finally(restoreClock);
		},
		propertyTimeout(8, 8_000),
	);
});
