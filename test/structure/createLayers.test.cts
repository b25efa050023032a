/**
 * Call → Create's engine (nodes/VoiceAgent/actions/call/create/) as layers a reader walks in one direction,
 * read from the sources' own imports: no circle, no import from a higher layer, the folder within its size.
 * The layers, bottom first, are the ones its README draws.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const ENGINE = path.join(ROOT, 'nodes/VoiceAgent/actions/call/create');
const MAX_LINES = 3_000;
/** The batch's per-item entry: a lead's walk starts here. */
const LEAD_ENTRY = 'attempts/placeAndWait.ts';
const MAX_WALK_FILES = 12;

/** Bottom first: a file imports only files of its own layer or of a lower one. */
const LAYERS: string[][] = [
	['model.ts'],
	['records', 'gate'],
	['guards', 'callingHours'],
	['decide'],
	['placing'],
	['attempts'],
	['batch'],
];

/** The engine's TypeScript sources, relative to its folder, without generated data (`*.data.ts`). */
const sources = fs
	.readdirSync(ENGINE, { recursive: true, encoding: 'utf8' })
	.filter((file) => file.endsWith('.ts') && !file.endsWith('.data.ts'))
	.map((file) => file.split(path.sep).join('/'))
	.sort();

/** The engine's files a source imports (type imports too: a type is a dependency a reader follows). */
function importsOf(file: string): string[] {
	const text = fs.readFileSync(path.join(ENGINE, file), 'utf8');
	const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(
		(match) => match[1],
	);
	return specifiers
		.map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)))
		.filter((target) => !target.startsWith('..'))
		.map((target) => `${target}.ts`)
		.filter((target) => sources.includes(target));
}

function layerOf(file: string): number {
	const top = file.split('/')[0];
	const layer = LAYERS.findIndex((names) => names.includes(top));
	if (layer < 0) throw new Error(`${file} is in no layer of the engine (add its folder to LAYERS)`);
	return layer;
}

test('every file of the engine is in a layer', () => {
	expect(sources.filter((file) => !LAYERS.flat().includes(file.split('/')[0]))).toEqual([]);
});

test('no file imports from a higher layer', () => {
	const upward = sources.flatMap((file) =>
		importsOf(file)
			.filter((target) => layerOf(target) > layerOf(file))
			.map((target) => `${file} → ${target}`),
	);
	expect(upward).toEqual([]);
});

test('no circle among the engine files', () => {
	const circles: string[] = [];
	const state = new Map<string, 'open' | 'done'>();
	const visit = (file: string, trail: string[]) => {
		if (state.get(file) === 'done') return;
		if (state.get(file) === 'open') {
			circles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
			return;
		}
		state.set(file, 'open');
		for (const target of importsOf(file)) visit(target, [...trail, file]);
		state.set(file, 'done');
	};
	for (const file of sources) visit(file, []);
	expect(circles).toEqual([]);
});

test(`the engine is at most ${MAX_LINES} lines, without its generated data`, () => {
	const lines = sources.reduce(
		(sum, file) => sum + fs.readFileSync(path.join(ENGINE, file), 'utf8').split('\n').length - 1,
		0,
	);
	expect({ lines, atMost: lines <= MAX_LINES }).toEqual({ lines, atMost: true });
});

/**
 * A lead's walk, measured from the imports: every engine file the per-item entry reaches, type imports
 * included (a reader follows a type to its file as much as a call). It over-counts what one lead runs (a
 * guard that is off is still reached), never under-counts it.
 */
function reachedFrom(entry: string): string[] {
	const reached = new Set<string>([entry]);
	for (const file of reached) for (const target of importsOf(file)) reached.add(target);
	return [...reached].sort();
}

test(`a lead's walk from ${LEAD_ENTRY} reaches at most ${MAX_WALK_FILES} engine files`, () => {
	const walk = reachedFrom(LEAD_ENTRY);
	expect({ walk, atMost: walk.length <= MAX_WALK_FILES }).toEqual({ walk, atMost: true });
});
