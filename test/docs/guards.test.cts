/**
 * docs/safety.md's table of where each Call → Create guard is kept, checked against the code: every file
 * it names exists in the engine's folder and exports the name given, every scope is one the page defines,
 * and every module of the engine that keeps memory between executions (module scope) is in the table.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const ENGINE = path.join(ROOT, 'nodes/VoiceAgent/actions/call/create');
const SCOPES = ['run', 'execution', 'process', 'across processes', 'every item'];

const safety = fs.readFileSync(path.join(ROOT, 'docs/safety.md'), 'utf8');

/** The rows of the table under "Where each guard is kept in the code": [guard, scope, file, export]. */
function guardRows(): string[][] {
	const section = safety.split('### Where each guard is kept in the code')[1]?.split('\n## ')[0];
	if (section === undefined)
		throw new Error('docs/safety.md has no "Where each guard is kept in the code"');
	return section
		.split('\n')
		.filter(
			(line) => line.startsWith('| ') && !line.startsWith('| Guard ') && !line.startsWith('|---'),
		)
		.map((line) =>
			line
				.slice(1, -1)
				.split(' | ')
				.map((cell) => cell.trim().replace(/^`|`$/g, '')),
		);
}

test('the table names each guard once, with a file, an export and a scope', () => {
	const rows = guardRows();
	expect(rows.length).toBeGreaterThanOrEqual(8);
	for (const [guard, scope, file, name] of rows) {
		expect({ guard, scope: SCOPES.some((known) => scope.includes(known)) }).toEqual({
			guard,
			scope: true,
		});
		const source = path.join(ENGINE, file);
		expect({ guard, file, exists: fs.existsSync(source) }).toEqual({ guard, file, exists: true });
		const exported = new RegExp(`export (async )?(function|class|const) ${name}\\b`);
		expect({ guard, name, exported: exported.test(fs.readFileSync(source, 'utf8')) }).toEqual({
			guard,
			name,
			exported: true,
		});
	}
});

test('every engine module that keeps memory across executions (module scope) is in the table', () => {
	const named = new Set(guardRows().map(([, , file]) => file));
	const files = fs
		.readdirSync(ENGINE, { recursive: true, encoding: 'utf8' })
		// callingHours/ keeps only a cache of zone offsets, which decides nothing on its own.
		.filter((file) => file.endsWith('.ts') && !file.startsWith('callingHours'));
	const moduleState = files.filter((file) =>
		/^const \w+ = new (Map|Set)\b/m.test(fs.readFileSync(path.join(ENGINE, file), 'utf8')),
	);
	expect(moduleState.length).toBeGreaterThan(0);
	for (const file of moduleState)
		expect({ file, inTable: named.has(file) }).toEqual({ file, inTable: true });
});

test('no page speaks of the claims and flights the gate replaced', () => {
	for (const page of [
		'README.md',
		'docs/safety.md',
		'docs/voice-agent-node.md',
		'docs/scaling.md',
	]) {
		const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
		expect({
			page,
			claims:
				/\bclaims?\b|processClaims|flights\.ts|once the first call is listed|may both place it/i.test(
					text,
				),
		}).toEqual({
			page,
			claims: false,
		});
	}
});
