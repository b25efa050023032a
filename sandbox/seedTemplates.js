'use strict';

// What seeded agents and calls are made of: agents of a few businesses in several languages, each with the
// contexts its calls carry.

/** @typedef {import('./types').AgentSettings} AgentSettings */

/** Listings may carry a model that upsert does not accept (docs/service.md, "Agents"); it is the third one here. */
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

module.exports = { SEED_MODELS, AREA_CODES, AGENT_TEMPLATES, GENERIC_CONTEXTS };
