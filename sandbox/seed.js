'use strict';

const { newAgent, newCall, endCall } = require('./records');

/** @typedef {import('./types').Agent} Agent */
/** @typedef {import('./types').Call} Call */
/** @typedef {import('./types').AgentSettings} AgentSettings */
/** @typedef {import('./store').Account} Account */
/** @typedef {import('./random').Random} Random */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Seeded calls fall within this many days before the seed request. */
const CALL_HISTORY_DAYS = 30;
/** Share of seeded calls that failed. */
const FAILED_SHARE = 0.12;

/** Listings may carry a model that upsert no longer accepts (decisions.md); it is the third one here. */
const SEED_MODELS = ['gpt-4o', 'service-voice', 'gpt-3.5-turbo'];
const AREA_CODES = ['415', '212', '312', '617', '206', '512'];

/**
 * @typedef {{ name: string, settings: Partial<AgentSettings>, contexts: string[] }} AgentTemplate
 */

/** @type {AgentTemplate[]} */
const AGENT_TEMPLATES = [
	{
		name: 'Appointment Reminder',
		settings: {
			system_prompt:
				'You call patients of Riverside Dental to confirm upcoming appointments. Offer to reschedule when the time does not suit them.',
			initial_message: 'Hello, this is Riverside Dental calling about your upcoming appointment.',
			voice_id: 'nova',
			language: 'en',
			endpointing: 300,
			tools: [
				{
					type: 'function',
					function: {
						name: 'reschedule_appointment',
						description: 'Move the appointment to a new date and time',
						parameters: {
							type: 'object',
							properties: { date: { type: 'string' }, time: { type: 'string' } },
							required: ['date', 'time'],
						},
					},
				},
			],
		},
		contexts: [
			'Cleaning on Tuesday at 10:00 with Dr. Patel',
			'Check-up on Friday at 14:30',
			'Root canal follow-up next Monday at 09:15',
		],
	},
	{
		name: 'Order Status',
		settings: {
			system_prompt:
				'You tell customers of Northwind Store where their order is and answer delivery questions.',
			initial_message: 'Hi, this is Northwind Store with an update on your order.',
			voice_id: 'alloy',
			language: 'en',
			voice_optimization: 2,
		},
		contexts: [
			'Order 48213 ships tomorrow',
			'Order 50077 is delayed by two days',
			'Order 51920 was left at the front desk',
		],
	},
	{
		name: 'Customer Survey',
		settings: {
			system_prompt:
				'Haces una encuesta corta de satisfacción de tres preguntas. Sé breve y amable.',
			initial_message: 'Hola, le llamamos para una encuesta breve sobre su última visita.',
			voice_id: 'shimmer',
			language: 'es',
			filler_words: true,
			filler_words_whitelist: ['bueno', 'pues'],
		},
		contexts: ['Visita a la tienda de Valencia el lunes', 'Llamada al soporte del 3 de marzo'],
	},
	{
		name: 'Sales Follow-up',
		settings: {
			system_prompt:
				'You follow up with leads who asked for a quote and book a demo when they are interested.',
			initial_message: 'Hello, I am following up on the quote you asked for last week.',
			voice_id: 'echo',
			language: 'en',
			actions: [
				{
					name: 'transfer_to_sales',
					instructions: 'Transfer the call when the customer asks about pricing details.',
					forwarding_number: '+14155550100',
				},
			],
			compliance_checks: [
				{
					name: 'no_pricing_promises',
					model: 'gpt-4o',
					check_instructions: 'The agent must not promise discounts.',
					rewrite_threshold: 2,
				},
			],
		},
		contexts: [
			'Quote Q-1042 for 25 seats',
			'Quote Q-1057 for the enterprise plan',
			'Lead from the trade fair in Austin',
		],
	},
	{
		name: 'Reservation Desk',
		settings: {
			system_prompt: 'Du bestätigst Tischreservierungen des Restaurants Lindenhof.',
			initial_message: 'Guten Tag, hier ist das Restaurant Lindenhof.',
			voice_id: 'onyx',
			language: 'de',
			voicemail_number: '+493012345678',
		},
		contexts: [
			'Tisch für vier am Samstag um 19:00',
			'Geburtstagsfeier für zwölf Personen am Freitag',
		],
	},
];

const GENERIC_CONTEXTS = ['Follow-up on your recent request', 'Reminder about your account', ''];

/**
 * A pool of customer numbers, reused across calls so the client_number filter finds several calls.
 * @param {Random} random
 * @param {number} size
 * @returns {string[]}
 */
function clientNumbers(random, size) {
	const numbers = new Set();
	while (numbers.size < size) {
		const kind = random.int(0, 5);
		if (kind === 0) numbers.add(`+447${random.digits(9)}`);
		else if (kind === 1) numbers.add(`+49151${random.digits(8)}`);
		else numbers.add(`+1${random.pick(AREA_CODES)}${random.digits(7)}`);
	}
	return [...numbers];
}

/**
 * @param {Account} account
 * @param {string} base
 * @returns {string} `base`, or `base 2`, `base 3`... whichever no agent of the account has
 */
function freeName(account, base) {
	let name = base;
	for (let n = 2; account.agentsByName.has(name); n++) name = `${base} ${n}`;
	return name;
}

/**
 * @param {Agent} agent
 * @returns {string[]}
 */
function contextsFor(agent) {
	return (
		AGENT_TEMPLATES.find((template) => agent.name.startsWith(template.name))?.contexts ??
		GENERIC_CONTEXTS
	);
}

/**
 * Adds `agents` agents and `calls` ended calls to an account. The data depends only on the random stream
 * and the account's existing agents; times are offsets before `nowMs`. Calls are spread over all agents
 * of the account; one agent is created first if the account has none.
 * @param {Account} account
 * @param {{ agents: number, calls: number }} counts
 * @param {Random} random
 * @param {number} nowMs
 * @returns {{ agents_created: number, calls_created: number }}
 */
function seedAccount(account, counts, random, nowMs) {
	const agentsToCreate =
		counts.calls > 0 && counts.agents === 0 && account.agents.size === 0 ? 1 : counts.agents;
	for (let i = 0; i < agentsToCreate; i++) {
		const index = account.agents.size;
		const template = AGENT_TEMPLATES[index % AGENT_TEMPLATES.length];
		const agent = newAgent(
			account,
			{
				name: freeName(account, template.name),
				areaCode: random.pick(AREA_CODES),
				settings: {
					...structuredClone(template.settings),
					llm_model: SEED_MODELS[index % SEED_MODELS.length],
				},
			},
			random,
			// Agents exist a while before their calls: 45 days back, an hour or so apart.
			nowMs - 45 * DAY_MS + i * HOUR_MS + random.int(0, 59) * 60_000,
		);
		account.addAgent(agent);
	}

	const agents = [...account.agents.values()];
	const clients =
		counts.calls > 0
			? clientNumbers(random, Math.min(40, Math.max(3, Math.ceil(counts.calls / 3))))
			: [];
	/** @type {Call[]} */
	const calls = [];
	for (let i = 0; i < counts.calls; i++) {
		const agent = random.pick(agents);
		const earliest = Math.max(agent.created_ms + 1, nowMs - CALL_HISTORY_DAYS * DAY_MS);
		const startMs = earliest + Math.floor(random.next() * Math.max(1, nowMs - earliest - 600_000));
		const call = newCall(
			account,
			{
				agent,
				to: random.pick(clients),
				context: random.pick(contextsFor(agent)),
				userSpeaksFirst: random.next() < 0.2,
			},
			random,
			startMs,
		);
		const failed = random.next() < FAILED_SHARE;
		const endMs = failed ? startMs : Math.min(nowMs, startMs + random.int(20, 600) * 1000);
		endCall(call, failed ? 'failed' : 'completed', agent, endMs);
		account.calls.set(call.id, call); // reserve the id: uniqueId checks account.calls
		calls.push(call);
	}
	account.addCalls(calls);
	return { agents_created: agentsToCreate, calls_created: counts.calls };
}

module.exports = { seedAccount };
