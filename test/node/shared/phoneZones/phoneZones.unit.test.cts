/**
 * The time zones of a phone number, from libphonenumber's prefix→time-zone map: the generated data is what the
 * vendored source gives, prefix by prefix, and a few numbers land where a person would expect.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { zonesOfNumber } from '../../../../nodes/shared/phoneZones/phoneZones';
import { isValidTimeZone } from '../../../../nodes/VoiceAgent/actions/call/create/callingHours/window';

const ROOT = path.resolve(__dirname, '../../../..');
const SOURCE = path.join(ROOT, 'scripts/data/libphonenumber/timezones-map_data.txt');

/** The vendored map as its own format says: `prefix|Zone&Zone`, comments after `#`. */
function sourceEntries(): Array<[string, string[]]> {
	return fs
		.readFileSync(SOURCE, 'utf8')
		.split('\n')
		.filter((line) => line.trim() !== '' && !line.startsWith('#'))
		.map((line) => {
			const [prefix, zones] = line.trim().split('|');
			return [prefix, zones.split('&')];
		});
}

describe('the generated data and the vendored source', () => {
	const entries = sourceEntries();

	test('the generated modules and the docs’ table of countries are what scripts/phone-zones.mjs makes of the source (run npm run build)', () => {
		const output = execFileSync(process.execPath, ['scripts/phone-zones.mjs', '--check'], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		expect(output).toContain('phoneZones.data.ts is up to date');
		expect(output).toContain('countryWideRanges.data.ts is up to date');
		expect(output).toContain('docs/voice-agent-node.md is up to date');
	});

	test('every prefix of the source gives its zones, in the order the source lists them', () => {
		expect(entries.length).toBeGreaterThan(3000);
		for (const [prefix, zones] of entries)
			expect([prefix, zonesOfNumber(`+${prefix}`)]).toEqual([prefix, zones]);
	});

	test('a longer number gets the zones of the longest prefix the source lists for it', () => {
		const zonesOf = new Map(entries);
		for (const [prefix] of entries) {
			const number = `${prefix}4567890123`.slice(0, 15);
			let longest = number;
			while (!zonesOf.has(longest)) longest = longest.slice(0, -1);
			expect([number, zonesOfNumber(`+${number}`)]).toEqual([number, zonesOf.get(longest)]);
		}
	});

	test("every zone the source names is one the platform's Intl knows", () => {
		const zones = new Set(entries.flatMap(([, zoneList]) => zoneList));
		expect([...zones].filter((zone) => !isValidTimeZone(zone))).toEqual([]);
	});

	test('the licence of the source ships with the package, with its version and commit', () => {
		const notices = fs.readFileSync(path.join(ROOT, 'THIRD_PARTY_NOTICES.md'), 'utf8');
		const licence = fs.readFileSync(path.join(ROOT, 'scripts/data/libphonenumber/LICENSE'), 'utf8');
		const source = JSON.parse(
			fs.readFileSync(path.join(ROOT, 'scripts/data/libphonenumber/source.json'), 'utf8'),
		);
		expect(notices).toContain(licence);
		expect(notices).toContain(`libphonenumber ${source.version}`);
		expect(notices).toContain(source.commit);
		const { files } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
		expect(files).toContain('THIRD_PARTY_NOTICES.md');
	});
});

describe('zonesOfNumber', () => {
	test.each([
		['+12125551234', ['America/New_York']],
		['+18085550123', ['Pacific/Honolulu']],
		['+442071234567', ['Europe/London']],
		['+61212345678', ['Australia/Sydney']],
		['+12082015555', ['America/Denver']],
	])('%s is in %j', (number, zones) => {
		expect(zonesOfNumber(number)).toEqual(zones);
	});

	test('a number whose prefix spans several zones gets them all: +7 without more known digits, +1 alone', () => {
		const russiaAndKazakhstan = zonesOfNumber('+7');
		expect(russiaAndKazakhstan).toEqual(
			expect.arrayContaining(['Europe/Moscow', 'Asia/Vladivostok', 'Asia/Anadyr', 'Asia/Almaty']),
		);
		expect(russiaAndKazakhstan!.length).toBeGreaterThan(5);
		expect(zonesOfNumber('+12082')).toEqual(['America/Boise', 'America/Los_Angeles']);
		expect(zonesOfNumber('+1')).toHaveLength(42);
	});

	test('an unknown prefix (+999) and a non-geographic number (+800) have no zone', () => {
		expect(zonesOfNumber('+99912345678')).toBeUndefined();
		expect(zonesOfNumber('+80012345678')).toBeUndefined();
	});

	test('separators people write are ignored; what is not E.164 has no zone', () => {
		expect(zonesOfNumber('+1 (212) 555-1234')).toEqual(['America/New_York']);
		expect(zonesOfNumber('+44 20.7123.4567')).toEqual(['Europe/London']);
		for (const notE164 of [
			'2125551234',
			'0044207123456',
			'',
			'+',
			'+1212555123456789',
			'+1 212 CALL NOW',
		])
			expect([notE164, zonesOfNumber(notE164)]).toEqual([notE164, undefined]);
	});

	test('each answer is the caller’s own list: changing it does not change the next answer', () => {
		zonesOfNumber('+12125551234')!.push('Asia/Tokyo');
		expect(zonesOfNumber('+12125551234')).toEqual(['America/New_York']);
	});

	test('a prefix the map marks Etc/Unknown only has no zone (libphonenumber’s answer for "cannot say")', () => {
		jest.isolateModules(() => {
			jest.doMock('../../../../nodes/shared/phoneZones/phoneZones.data', () => ({
				zoneNames: 'Etc/Unknown|Europe/London',
				prefixGroups: '0=888;0.1=889;1=88',
			}));
			const isolated: typeof import('../../../../nodes/shared/phoneZones/phoneZones') = require('../../../../nodes/shared/phoneZones/phoneZones');
			expect(isolated.zonesOfNumber('+8881234')).toBeUndefined();
			expect(isolated.zonesOfNumber('+8891234')).toEqual(['Europe/London']);
			expect(isolated.zonesOfNumber('+8871234')).toEqual(['Europe/London']);
		});
	});
});
