#!/usr/bin/env node
// Writes nodes/shared/phoneNumber.data.ts from libphonenumber's number metadata (PhoneNumberMetadata.xml, vendored
// in scripts/data/libphonenumber/, its version and commit in source.json): for every calling code, what
// libphonenumber reads when it parses a number written with that code (PhoneNumberUtil.parse). That is the
// metadata of the code's main region alone (libphonenumber parses "+1…" with the United States' rules, "+44…" with
// the United Kingdom's): its national prefix for parsing (`nationalPrefixForParsing`, a pattern, or else its
// `nationalPrefix`) and the rule that rewrites it (`nationalPrefixTransformRule`), its general national-number
// pattern and the possible lengths of its numbers; and the national prefix every region of the code drops in
// international format (`nationalPrefix`), which a writer may put in brackets after the code ("+44 (0)20…").
// `npm run build` runs it; `--check` only compares and exits 1 when the committed file is not what the source gives.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIR = path.join(ROOT, 'scripts/data/libphonenumber');
const TARGET = path.join(ROOT, 'nodes/shared/phoneNumber.data.ts');

/** "[4-6],8" (a possibleLengths attribute) as [4, 5, 6, 8]. */
function lengthsOf(text) {
	if (!text) return [];
	return text.split(',').flatMap((part) => {
		const range = /^\[(\d+)-(\d+)\]$/.exec(part);
		if (range) {
			const [from, to] = [Number(range[1]), Number(range[2])];
			return Array.from({ length: to - from + 1 }, (_, n) => from + n);
		}
		if (!/^\d+$/.test(part)) throw new Error(`possible length "${part}" is not a length`);
		return [Number(part)];
	});
}

/**
 * The possible lengths of a region's numbers as libphonenumber's metadata build gives its general description:
 * every length of every number type but `noInternationalDialling`, and the lengths dialled only locally that
 * are no such length.
 */
function possibleLengthsOf(body) {
	const typed = body.replace(/<noInternationalDialling>[\s\S]*?<\/noInternationalDialling>/, '');
	const national = new Set();
	const localOnly = new Set();
	for (const [, attributes] of typed.matchAll(/<possibleLengths\s([^>]*?)\/?>/g)) {
		for (const length of lengthsOf(/national="([^"]*)"/.exec(attributes)?.[1]))
			national.add(length);
		for (const length of lengthsOf(/localOnly="([^"]*)"/.exec(attributes)?.[1]))
			localOnly.add(length);
	}
	const sorted = (set) => [...set].sort((a, b) => a - b);
	return {
		lengths: sorted(national),
		localOnly: sorted(localOnly).filter((length) => !national.has(length)),
	};
}

/**
 * The metadata's territories: `{ id, countryCode, main, nationalPrefix, parsing, transform, generalPattern,
 * lengths, localOnly }`; `parsing` is libphonenumber's national prefix for parsing, its `nationalPrefix` where
 * the territory names no other, as libphonenumber's metadata build does.
 */
export function readTrunkTerritories(xml) {
	const text = xml.replace(/<!--[\s\S]*?-->/g, '');
	const territories = [];
	for (const [, attributes, body] of text.matchAll(
		/<territory\s([^>]*)>([\s\S]*?)<\/territory>/g,
	)) {
		const attribute = (name) =>
			new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes)?.[1]?.replace(/\s+/g, '');
		const general =
			/<generalDesc>\s*<nationalNumberPattern>([\s\S]*?)<\/nationalNumberPattern>/.exec(body);
		if (!general) throw new Error(`territory ${attribute('id')} has no general pattern`);
		territories.push({
			id: attribute('id'),
			countryCode: attribute('countryCode'),
			main: attribute('mainCountryForCode') === 'true',
			nationalPrefix: attribute('nationalPrefix'),
			parsing: attribute('nationalPrefixForParsing') ?? attribute('nationalPrefix') ?? '',
			transform: attribute('nationalPrefixTransformRule') ?? '',
			generalPattern: general[1].replace(/\s+/g, ''),
			...possibleLengthsOf(body),
		});
	}
	if (territories.length < 200)
		throw new Error(`PhoneNumberMetadata.xml gave ${territories.length} territories`);
	return territories;
}

/**
 * Per calling code: `{ code, region, trunk, parsing, transform, lengths, localOnly, pattern }`, all of the code's
 * main region but `trunk` ('' where no region of the code has one), which every region of the code shares.
 */
export function trunkPrefixes(xml) {
	const byCode = new Map();
	for (const territory of readTrunkTerritories(xml)) {
		if (!/^[1-9]\d{0,2}$/.test(territory.countryCode ?? ''))
			throw new Error(`territory ${territory.id} has calling code ${territory.countryCode}`);
		if (territory.nationalPrefix !== undefined && !/^\d+$/.test(territory.nationalPrefix))
			throw new Error(`territory ${territory.id} has a national prefix that is not digits`);
		if (!byCode.has(territory.countryCode)) byCode.set(territory.countryCode, []);
		byCode.get(territory.countryCode).push(territory);
	}
	const rows = [];
	for (const [code, territories] of byCode) {
		const trunks = new Set(territories.map((territory) => territory.nationalPrefix ?? ''));
		// Regions of one calling code that disagree would make one spelling two numbers: the build stops.
		if (trunks.size > 1)
			throw new Error(`calling code ${code} has national prefixes ${[...trunks].join(', ')}`);
		const mains = territories.length === 1 ? territories : territories.filter(({ main }) => main);
		if (mains.length !== 1)
			throw new Error(`calling code ${code} has ${mains.length} main regions`);
		const [main] = mains;
		// Data JavaScript would read otherwise than libphonenumber (Java) stops the build.
		for (const source of [main.parsing, main.generalPattern]) new RegExp(source);
		if (/\s/.test(main.parsing + main.generalPattern + main.transform))
			throw new Error(`calling code ${code} has a space in its patterns`);
		// A transform rule JavaScript's replace reads as Java's replaceFirst does: "$n" of a group the pattern has.
		const groups = new RegExp(`${main.parsing}|`).exec('').length - 1;
		const references = [...main.transform.matchAll(/\$(.)/g)].map(([, group]) => group);
		if (references.some((group) => !/^\d$/.test(group) || Number(group) > groups))
			throw new Error(`calling code ${code} has a transform rule "${main.transform}"`);
		if (main.lengths.length === 0) throw new Error(`calling code ${code} has no possible lengths`);
		rows.push({
			code,
			region: main.id,
			trunk: [...trunks][0],
			parsing: main.parsing,
			transform: main.transform,
			lengths: main.lengths,
			localOnly: main.localOnly,
			pattern: main.generalPattern,
		});
	}
	return rows.sort((a, b) => a.code.localeCompare(b.code));
}

/** One row as the module stores it: fields separated by a space (no pattern holds one), '' where empty. */
export function rowText(row) {
	const { code, trunk, lengths, localOnly, transform, parsing, pattern } = row;
	return [code, trunk, lengths.join(','), localOnly.join(','), transform, parsing, pattern].join(
		' ',
	);
}

export function generate(xml, source) {
	const rows = trunkPrefixes(xml);
	const withTrunk = rows.filter((row) => row.trunk !== '').length;
	const withParsing = rows.filter((row) => row.parsing !== '').length;
	const withTransform = rows.filter((row) => row.transform !== '').length;
	return [
		`// Generated by scripts/phone-trunk-prefixes.mjs from libphonenumber ${source.version} (commit ${source.commit}),`,
		`// resources/PhoneNumberMetadata.xml, ${source.licence} (see THIRD_PARTY_NOTICES.md). Do not edit: \`npm run build\` writes it.`,
		'',
		`/**`,
		` * ${rows.length} calling codes, one per line, fields separated by a space: the code; its national prefix (${withTrunk}`,
		` * codes have one); then, of the region libphonenumber parses the code's numbers with, the possible lengths`,
		` * of its national numbers and those dialled only locally; the rule that rewrites a national prefix (${withTransform}`,
		` * codes); the national prefix for parsing, a pattern (${withParsing} codes); the pattern of every national number.`,
		` */`,
		'export const callingCodes = [',
		...rows.map((row) => `\t'${rowText(row).replaceAll('\\', '\\\\')}',`),
		"].join('\\n');",
		'',
	].join('\n');
}

function main() {
	const source = JSON.parse(fs.readFileSync(path.join(SOURCE_DIR, 'source.json'), 'utf8'));
	const xml = fs.readFileSync(path.join(SOURCE_DIR, 'PhoneNumberMetadata.xml'), 'utf8');
	const content = generate(xml, source);
	const current = fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : undefined;
	const relative = path.relative(ROOT, TARGET);
	if (process.argv.includes('--check')) {
		if (current === content) console.log(`${relative} is up to date`);
		else {
			console.error(`${relative} is out of date: run node scripts/phone-trunk-prefixes.mjs`);
			process.exitCode = 1;
		}
		return;
	}
	if (current !== content) fs.writeFileSync(TARGET, content);
	console.log(`${relative}: ${Buffer.byteLength(content)} bytes from ${source.version}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
