import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../../../../../shared/validation';
import { fromVersion13, OUTCOMES_VERSION } from '../model';
import { zonesOfNumber } from '../../../../../shared/phoneZones/phoneZones';
import {
	isValidTimeZone,
	nextWindowStart,
	parseClock,
	type CallingWindow,
	type ItemHours,
} from './window';

const DAYS = 'sunday monday tuesday wednesday thursday friday saturday'.split(' ');
const dayName = (day: string) => day[0].toUpperCase() + day.slice(1);

const FIELD = 'Calling Hours';
const UNKNOWN_ZONE = 'Unknown Time Zone';
const LABELS = {
	days: `${FIELD} → Days`,
	from: `${FIELD} → Hours From`,
	until: `${FIELD} → Hours Until`,
	zone: `${FIELD} → Time Zone`,
	zoneName: `${FIELD} → Time Zone Name`,
	number: `${FIELD} → Time Zone (the number's own)`,
};

export const callingHoursOption: INodeProperties = {
	displayName: FIELD,
	name: 'callingHours',
	type: 'fixedCollection',
	default: {},
	placeholder: 'Add Calling Hours',
	description:
		'Only call within these hours. An item outside them is not dialled and is no error: it is output with "outcome": "deferred" and "next_call_at", the start of its next window. A window that closes while the item waits for its turn defers it too.',
	displayOptions: fromVersion13,
	options: [
		{
			displayName: 'Hours',
			name: 'hours',
			values: [
				{
					displayName: 'Days',
					name: 'days',
					type: 'multiOptions',
					options: DAYS.map((day) => ({ name: dayName(day), value: day })),
					default: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
					description: 'The days, in the local time, on which a window opens',
				},
				{
					displayName: 'Hours From',
					name: 'from',
					type: 'string',
					default: '09:00',
					placeholder: 'e.g. 08:00',
					description: 'Local time (24-hour, HH:MM) the window opens',
				},
				{
					displayName: 'Hours Until',
					name: 'until',
					type: 'string',
					default: '20:00',
					placeholder: 'e.g. 21:00',
					description:
						'Local time (24-hour, HH:MM) the window closes; a call is never started at or after it. Earlier than Hours From: the window runs overnight into the next day.',
				},
				{
					displayName: 'Time Zone',
					name: 'timeZone',
					type: 'options',
					options: [
						{
							name: "The Number's Own",
							value: 'number',
							description:
								"From the number's country and area code. A number that may be in several zones (a mobile in a country that spans zones, e.g. Australia) is called only when the window is open in all of them.",
						},
						{
							name: "The Workflow's",
							value: 'workflow',
							description: "The time zone in the workflow's settings (else the n8n instance's)",
						},
						{
							name: 'Given',
							value: 'given',
							description: 'A time zone you name, per item if needed',
						},
					],
					default: 'number',
					description:
						"Whose local time the days and hours are: the person's (from their number), the workflow's, or one you name",
				},
				{
					displayName: 'Time Zone Name',
					name: 'zone',
					type: 'string',
					default: '',
					placeholder: 'e.g. America/New_York or {{ $json.timezone }}',
					description: 'A time zone name such as America/New_York or Europe/Berlin (IANA)',
					displayOptions: { show: { timeZone: ['given'] } },
				},
				{
					displayName: UNKNOWN_ZONE,
					name: 'unknownNumber',
					type: 'options',
					options: [
						{
							name: 'Fail the Item',
							value: 'refuse',
							description: 'Nothing is dialled for it; the error names the number',
						},
						{
							name: "Use the Workflow's Time Zone",
							value: 'workflow',
							description: "The hours are read in the workflow's time zone",
						},
					],
					default: 'refuse',
					description:
						'What to do with a number whose country and area code name no time zone (e.g. +800)',
					displayOptions: { show: { timeZone: ['number'] } },
				},
			],
		},
	],
};

function zonesOfItem(
	context: IExecuteFunctions,
	validate: InputValidator,
	hours: IDataObject,
	to: string,
): string[] {
	const mode = validate.oneOf(hours.timeZone ?? 'number', LABELS.zone, [
		'number',
		'workflow',
		'given',
	]);
	if (mode === 'workflow') return [context.getTimezone()];
	if (mode === 'given') {
		const zone = validate.nonEmptyString(hours.zone, LABELS.zoneName, 64);
		if (!isValidTimeZone(zone))
			validate.fail(LABELS.zoneName, `is not a known IANA time zone ("${zone}")`);
		return [zone];
	}
	const zones = zonesOfNumber(to);
	if (zones) return zones;
	if (hours.unknownNumber === 'workflow') return [context.getTimezone()];
	return validate.fail(
		LABELS.number,
		`is unknown for ${to}: its country and area code name no time zone, so nothing was dialled`,
		`Choose "Use the Workflow's Time Zone" under ${UNKNOWN_ZONE}, or give the zone per item (Time Zone: Given).`,
	);
}

/** Checked before anything is sent: a window never open in all the number's zones within a week fails here. */
export function readCallingHours(
	context: IExecuteFunctions,
	validate: InputValidator,
	options: IDataObject,
	to: string,
): ItemHours | undefined {
	if (context.getNode().typeVersion < OUTCOMES_VERSION) return undefined;
	const hours = (options.callingHours as IDataObject | undefined)?.hours as IDataObject | undefined;
	if (!hours) return undefined;
	const days = validate.stringList(hours.days ?? [], LABELS.days);
	if (days.length === 0) validate.fail(LABELS.days, 'must name at least one day');
	const unknownDay = days.find((day) => !DAYS.includes(day.toLowerCase()));
	if (unknownDay !== undefined)
		validate.fail(LABELS.days, `names no day of the week ("${unknownDay}")`);
	const clock = (value: unknown, field: string, allowMidnight: boolean) => {
		const minutes = parseClock(String(value ?? ''));
		if (minutes === undefined || (minutes === 24 * 60 && !allowMidnight))
			validate.fail(field, `must be a time of day like 08:00 (got ${JSON.stringify(value)})`);
		return minutes;
	};
	const window: CallingWindow = {
		days: days.map((day) => DAYS.indexOf(day.toLowerCase())),
		from: clock(hours.from ?? '09:00', LABELS.from, false),
		until: clock(hours.until ?? '20:00', LABELS.until, true),
	};
	if (window.from === window.until) validate.fail(LABELS.until, 'must differ from Hours From');
	const zones = zonesOfItem(context, validate, hours, to);
	const span = `${String(hours.from ?? '09:00')}–${String(hours.until ?? '20:00')}`;
	const described = `${days.map(dayName).join(', ')} ${span} in ${zones.join(' and ')}`;
	if (nextWindowStart(window, zones, Date.now()) === undefined) {
		validate.fail(
			FIELD,
			`never open within a week in every time zone of ${to} (${zones.join(', ')}), so nothing was dialled`,
			'A number that may be in several zones is called only when the window is open in all of them: widen the window, or give the zone per item (Time Zone: Given).',
		);
	}
	return { window, zones, described };
}
