/**
 * The docs' table of regions whose numbers Calling Hours treats as anywhere in the region
 * (docs/voice-agent-node.md, written by scripts/phone-zones.mjs), checked row by row against the package's
 * data and its own window arithmetic (window.ts), apart from the generator: one row per row of
 * countryWideRanges.data.ts, in order, with its zones, whether its mobiles are in it, and what 09:00–20:00,
 * Monday to Friday, leaves on Monday 11 January and Monday 12 July 2027 in the main zone's time.
 */
import fs from 'node:fs';
import path from 'node:path';

import { countryWideRanges } from '../../../../../nodes/shared/phoneZones/countryWideRanges.data';
import { isInsideWindow } from '../../../../../nodes/VoiceAgent/actions/call/create/callingHours/window';

const ROOT = path.resolve(__dirname, '../../../../..');
const docs = fs.readFileSync(path.join(ROOT, 'docs/voice-agent-node.md'), 'utf8');
const mapText = fs.readFileSync(
	path.join(ROOT, 'scripts/data/libphonenumber/timezones-map_data.txt'),
	'utf8',
);
const codeZones = (callingCode: string) =>
	new RegExp(`^${callingCode}\\|(.+)$`, 'm')
		.exec(mapText)![1]
		.split('&')
		.filter((zone) => zone !== 'Etc/Unknown');

const table = docs
	.slice(
		docs.indexOf('<!-- calling-hours-countries'),
		docs.indexOf('<!-- /calling-hours-countries -->'),
	)
	.split('\n')
	.map((line) => line.trim())
	.filter((line) => line.startsWith('| `+'))
	.map((line) => {
		const [code, ranges, zones, leaves] = line
			.slice(1, -1)
			.split(' | ')
			.map((cell) => cell.trim());
		return { code, ranges, zones, leaves };
	});

const rows = countryWideRanges.map((row) => {
	const [callingCode, , zones, , mobile] = row.split(' ');
	return { callingCode, zones: zones ? zones.split('&') : codeZones(callingCode), mobile };
});

const place = (zone: string) => zone.split('/').pop()!.replace(/_/g, ' ');
const WEEKDAYS = { days: [1, 2, 3, 4, 5], from: 9 * 60, until: 20 * 60 };
const QUARTER = 15 * 60_000;

function localMonday(zone: string, date: string): number {
	const format = new Intl.DateTimeFormat('en-US', {
		timeZone: zone,
		weekday: 'short',
		hour: '2-digit',
		minute: '2-digit',
		hourCycle: 'h23',
	});
	let ms = Date.parse(`${date}T00:00:00Z`) - 15 * 3_600_000;
	while (format.format(ms) !== 'Mon 00:00') ms += QUARTER;
	return ms;
}

/** The stretches of the main zone's Monday when the window is open in every zone, by window.ts. */
function stretches(main: string, zones: string[], date: string): string {
	const midnight = localMonday(main, date);
	const clock = (quarter: number) =>
		`${String(Math.floor(quarter / 4)).padStart(2, '0')}:${String((quarter % 4) * 15).padStart(2, '0')}`;
	const found: string[] = [];
	let opened: number | undefined;
	for (let quarter = 0; quarter <= 96; quarter++) {
		const open = quarter < 96 && isInsideWindow(WEEKDAYS, zones, midnight + quarter * QUARTER);
		if (open && opened === undefined) opened = quarter;
		if (!open && opened !== undefined) {
			found.push(`${clock(opened)}–${clock(quarter)}`);
			opened = undefined;
		}
	}
	return found.length > 0 ? found.join(', ') : 'none';
}

describe("the docs' table of regions anywhere in their country", () => {
	test('one row per row of the data, in order, naming its calling code', () => {
		expect(table.length).toBe(rows.length);
		for (const [index, row] of rows.entries())
			expect(table[index].code.startsWith(`\`+${row.callingCode}\` `)).toBe(true);
	});

	test.each(rows.map((row, index) => [table[index]?.code, row, index] as const))(
		'%s: its zones, its mobiles and what 09:00–20:00 leaves',
		(_code, row, index) => {
			const { ranges, zones, leaves } = table[index];
			const places = row.zones.map(place);
			if (places.length <= 8) expect(zones).toBe(places.join(', '));
			else expect(zones).toBe(`${places.length}: ${places.slice(0, 3).join(', ')}, …`);
			expect(ranges.startsWith('mobile')).toBe(row.mobile !== '');
			if (['1', '52', '54', '55', '86'].includes(row.callingCode))
				expect(ranges.endsWith('(mobiles keep their area code)')).toBe(true);

			const main = row.zones.find((zone) => leaves.includes(` ${place(zone)} time`));
			const january = main ? stretches(main, row.zones, '2027-01-11') : 'none';
			const july = main ? stretches(main, row.zones, '2027-07-12') : 'none';
			if (january === 'none' && july === 'none')
				expect(leaves).toBe('none: the item fails before anything is dialled');
			else if (january === july) expect(leaves).toBe(`${january} ${place(main!)} time`);
			else expect(leaves).toBe(`${january} ${place(main!)} time in January, ${july} in July`);
		},
	);

	test('what the issue asked of it: Chile’s mobiles in Santiago’s and Easter Island’s zones, Canada’s nine', () => {
		const chile = table.find((row) => row.code === '`+56` Chile')!;
		expect(chile.ranges.startsWith('mobile (fixed lines too')).toBe(true);
		expect(chile.zones).toBe('Santiago, Easter');
		expect(table.find((row) => row.code === '`+1` Canada')!.zones).toMatch(/^9: /);
	});
});
