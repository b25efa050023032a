/**
 * libphonenumber's number metadata as the tests read it, apart from the generator
 * (scripts/phone-trunk-prefixes.mjs): every territory's calling code, national (trunk) prefix, national
 * prefix for parsing and its transform rule, general national-number pattern and example numbers, straight
 * from the vendored PhoneNumberMetadata.xml.
 */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

const metadata = fs
	.readFileSync(path.join(ROOT, 'scripts/data/libphonenumber/PhoneNumberMetadata.xml'), 'utf8')
	.replace(/<!--[\s\S]*?-->/g, '');

export interface Region {
	id: string;
	code: string;
	trunk: string | undefined;
	/** libphonenumber's `nationalPrefixForParsing`, else its `nationalPrefix` ('' for neither). */
	parsing: string;
	transform: string;
	/** Whether libphonenumber parses the numbers of its calling code with this region's rules. */
	main: boolean;
	general: RegExp;
	examples: string[];
}

export const regions: Region[] = [
	...metadata.matchAll(/<territory ([^>]*)>([\s\S]*?)<\/territory>/g),
].map(([, attributes, body]) => ({
	id: / id="([^"]+)"/.exec(` ${attributes}`)![1],
	code: /countryCode="(\d+)"/.exec(attributes)![1],
	trunk: /\snationalPrefix="(\d+)"/.exec(` ${attributes}`)?.[1],
	parsing: (
		/\snationalPrefixForParsing="([^"]+)"/.exec(` ${attributes}`)?.[1] ??
		/\snationalPrefix="(\d+)"/.exec(` ${attributes}`)?.[1] ??
		''
	).replace(/\s+/g, ''),
	transform: /\snationalPrefixTransformRule="([^"]+)"/.exec(` ${attributes}`)?.[1] ?? '',
	main: / mainCountryForCode="true"/.test(` ${attributes}`),
	general: new RegExp(
		`^(?:${/<generalDesc>\s*<nationalNumberPattern>([\s\S]*?)</.exec(body)![1].replace(/\s+/g, '')})$`,
	),
	examples: [...body.matchAll(/<exampleNumber>(\d+)<\/exampleNumber>/g)].map(([, n]) => n),
}));

/** Whether a national number is one of its calling code's, in any region sharing the code. */
export const isNationalNumberOf = (code: string, digits: string) =>
	regions.some((region) => region.code === code && region.general.test(digits));

/** Every example number that is a national number of its code and 7 to 15 digits with it. */
export const examples = regions.flatMap((region) =>
	region.examples
		.filter((n) => isNationalNumberOf(region.code, n))
		.filter((n) => `${region.code}${n}`.length >= 7 && `${region.code}${n}`.length <= 15)
		.map((national) => ({ ...region, national })),
);

/** The region whose rules libphonenumber parses a number written with the calling code by. */
export function mainRegionOf(code: string): Region {
	const sharing = regions.filter((region) => region.code === code);
	return sharing.length === 1 ? sharing[0] : sharing.find((region) => region.main)!;
}
